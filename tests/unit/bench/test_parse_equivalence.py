"""The lean stream parser gives exactly what the old one gave, on real and hostile streams.

``bench/response.py`` parses with orjson and splits common-shape bodies in one pass (``sse.simple_events``);
``reference_parse.py`` is the parser as it was. Three properties: ``loads_chunk`` is ``json.loads`` (value, types,
key order, or the same refusal) on hostile bytes; ``simple_events`` gives ``SSEParser``'s payloads and stamps
whenever it takes a body; and ``parse_stream`` builds the same record as the old parser for every stream — ones
served over real sockets by the fake server (every fault it has) and generated hostile ones.
"""

from __future__ import annotations

import asyncio
import copy
import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.fakes.openai_server import FakeConfig, FakeServer
from tests.unit.bench import reference_parse

from benchledger.bench.client import ConnectionPool, RawStream, stream_request
from benchledger.bench.response import loads_chunk, parse_stream
from benchledger.bench.sse import simple_events

# ---------------------------------------------------------------------------------------------------- JSON
TRICKY = [b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-1e400", b"1e-400", b"-0", b"-0.0", b"\\ud800", b"\\udc00",
          b"\\ud83d\\ude00", b"9" * 19, b"-" + b"9" * 19, b"18446744073709551616", b"9223372036854775807",
          b"1" * 40, b"0.1000000000000000055511151231257827", b"\xef\xbb\xbf", b"\xff", b"\xc0\x80", b"\xed\xa0\x80",
          b"\x00", b"\x1f", b"\x7f", b"\x0c", b"\t", b"\r", b"\n", b"\xc2\xa0", b"\\u0000", b"\\", b'"', b"{", b"}",
          b"[", b"]", b":", b",", b"true", b"false", b"null", b"1.5e3", b"01", b"1.", b".5", b"+1", b"1E+2"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats() | st.text(max_size=6) | st.sampled_from(["\ud800", "\udfff", "\x00", "é", "😀"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=12)


@st.composite
def hostile_json(draw: st.DrawFn) -> bytes:
    """JSON text as servers send it, then bent: re-encoded, mutated with tricky tokens, duplicated keys."""
    value = draw(json_values)
    text = json.dumps(value, ensure_ascii=draw(st.booleans()), separators=draw(st.sampled_from([None, (",", ":")])))
    data = text.encode("utf-8", errors="surrogatepass")  # a lone surrogate becomes invalid UTF-8
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(data)))
        cut = draw(st.integers(0, 2))
        data = data[:at] + draw(st.sampled_from(TRICKY)) + data[at + cut:]
    if draw(st.booleans()):
        data = b'{"a": 1, "a": ' + data + b', "b": 2, "a": 3}'
    return data


def same(a: Any, b: Any) -> bool:
    """Equal values of the same types, floats by sign and NaN too, dicts in the same key order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def outcome(fn: Any, data: Any) -> tuple[str, Any]:
    try:
        return "value", fn(data)
    except ValueError:
        return "refused", None


def assert_loads_like_json(data: bytes) -> None:
    got, want = outcome(loads_chunk, data), outcome(json.loads, data.decode("utf-8", errors="replace"))
    assert got[0] == want[0], (data, got, want)
    assert same(got[1], want[1]), (data, got, want)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_json())
def test_loads_chunk_is_json_loads_on_hostile_json(data: bytes) -> None:
    assert_loads_like_json(data)


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=40) | st.lists(st.sampled_from(TRICKY), max_size=6).map(b"".join))
def test_loads_chunk_is_json_loads_on_garbage(data: bytes) -> None:
    assert_loads_like_json(data)


@pytest.mark.parametrize("data", [
    b"123456789012345678901234567890",  # orjson alone would give a float
    b'{"usage": {"completion_tokens": -9223372036854775809}}',
    b'{"a": NaN}', b"[1e400]", b'"\\ud800"', b'"\xed\xa0\x80"', b'\xef\xbb\xbf{}', b'{"a": 1, "a": 2}', b"-0",
])
def test_loads_chunk_on_the_known_differences_of_orjson(data: bytes) -> None:
    assert_loads_like_json(data)


# ---------------------------------------------------------------------------------------------------- SSE
def parser_events(pieces: list[tuple[float, bytes]]) -> list[tuple[float, str]]:
    return reference_parse.reference_events(RawStream(t_start=0.0, status=200, pieces=pieces))


@st.composite
def sse_bodies(draw: st.DrawFn) -> list[tuple[float, bytes]]:
    """Bodies mostly in the common shape, sometimes bent (CR, comments, extra blank lines, multi-line data),
    cut at random places, stamped with non-decreasing times (often several pieces with one stamp)."""
    events = draw(st.lists(st.binary(max_size=8).filter(lambda b: b"\n" not in b and b"\r" not in b), max_size=6))
    sep = draw(st.sampled_from([b"data: ", b"data:", b"data:  "]))
    body = b"".join(sep + e + b"\n\n" for e in events)
    if draw(st.integers(0, 3)) == 0:
        body = body.replace(b"\n", draw(st.sampled_from([b"\r\n", b"\r", b"\n\n", b"\n: ping\n"])), 1)
    if draw(st.integers(0, 5)) == 0:
        body = body[: draw(st.integers(0, len(body)))]
    cuts = sorted(set(draw(st.lists(st.integers(0, len(body)), max_size=8))))
    parts = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    t, pieces = 1.0, []
    for part in parts:
        t += draw(st.sampled_from([0.0, 0.0, 0.01, 0.02]))
        pieces.append((t, part))
    return pieces


@settings(max_examples=500, deadline=None)
@given(sse_bodies())
def test_simple_events_are_the_parsers_events(pieces: list[tuple[float, bytes]]) -> None:
    simple = simple_events(pieces)
    if simple is not None:
        assert [(t, d.decode("utf-8", errors="replace")) for t, d in simple] == parser_events(pieces)


def test_simple_events_takes_the_common_shape_and_leaves_the_rest() -> None:
    common = [(1.0, b'data: {"a": 1}\n\n'), (2.0, b'data: {"a": 2}\n\ndata:'), (3.0, b" [DONE]\n"), (4.0, b"\n")]
    assert simple_events(common) == [(1.0, b'{"a": 1}'), (2.0, b'{"a": 2}'), (4.0, b"[DONE]")]
    for bent in (b"data: a\r\n\r\n", b": ping\n\ndata: a\n\n", b"data: a\ndata: b\n\n", b"data: a\n\n\n",
                 b"event: x\ndata: a\n\n", b"data: a\n"):
        assert simple_events([(1.0, bent)]) is None  # left to SSEParser


# ---------------------------------------------------------------------------------------------------- streams
def assert_same_record(raw: RawStream, origin: float = 0.0) -> None:
    new = parse_stream(copy.deepcopy(raw), origin).model_dump()
    old = reference_parse.parse_stream(copy.deepcopy(raw), origin).model_dump()
    assert new == old


FAULTS = [None, "invalid_json", "malformed_sse", "delta_oops", "choices_int", "draft_n_abc", "negative_usage",
          "no_choices", "json_body", "html_body", "echo_key_sse", "reasoning", "http_500", "drop"]


def test_streams_served_over_sockets_by_the_fake_server_parse_as_before() -> None:
    with FakeServer(FakeConfig(ttft=0.0, step=0.0005, k=2, accept_pattern=[2, 0, 1])) as server:
        async def main() -> list[RawStream]:
            pool = ConnectionPool()
            jobs = []
            for path in ("/v1/completions", "/v1/chat/completions"):
                for fault in FAULTS:
                    body: dict[str, Any] = {"model": "m", "max_tokens": 9, "stream": True, "fake_fault": fault}
                    if path.endswith("chat/completions"):
                        body["messages"] = [{"role": "user", "content": "hi"}]
                    else:
                        body["prompt"] = "hi"
                    for usage in (True, False):
                        if usage:
                            body = {**body, "stream_options": {"include_usage": True, "continuous_usage_stats": True}}
                        jobs.append(stream_request(server.url, path, body, timeout=20, pool=pool, api_key="sk-x"))
            out = await asyncio.gather(*jobs)
            pool.close()
            return list(out)

        raws = asyncio.run(main())
    assert sum(1 for r in raws if r.status == 200 and r.pieces) >= 20
    assert any(simple_events(r.pieces) is not None for r in raws)  # the fast path was taken
    for raw in raws:
        assert_same_record(raw, raw.t_start)


ENGINE_STREAMS = {  # one stream per engine as each formats it (field names, order, floats, nulls, logprobs)
    "vllm-chat": [
        {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1733000000, "model": "m",
         "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "logprobs": None,
                      "finish_reason": None}], "usage": {"prompt_tokens": 12, "total_tokens": 12, "completion_tokens": 0}},
        {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1733000000, "model": "m",
         "choices": [{"index": 0, "delta": {"content": " the"}, "logprobs": {"content": [
             {"token": " the", "logprob": -0.0123456789, "bytes": [32, 116, 104, 101], "top_logprobs": []}]},
             "finish_reason": None}], "usage": {"prompt_tokens": 12, "total_tokens": 13, "completion_tokens": 1}},
        {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1733000000, "model": "m",
         "choices": [{"index": 0, "delta": {"content": " end"}, "finish_reason": "length", "stop_reason": None}],
         "usage": {"prompt_tokens": 12, "total_tokens": 15, "completion_tokens": 3}},
        {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1733000000, "model": "m", "choices": [],
         "usage": {"prompt_tokens": 12, "total_tokens": 15, "completion_tokens": 3}},
    ],
    "llamacpp": [
        {"choices": [{"text": "Hel", "index": 0, "logprobs": None, "finish_reason": None}], "created": 1733000000,
         "id": "chatcmpl-Xy", "model": "gpt-3.5-turbo", "system_fingerprint": "b5000-abc", "object": "text_completion"},
        {"choices": [{"text": "", "index": 0, "logprobs": None, "finish_reason": "length"}], "created": 1733000000,
         "id": "chatcmpl-Xy", "model": "gpt-3.5-turbo", "object": "text_completion",
         "usage": {"completion_tokens": 2, "prompt_tokens": 4, "total_tokens": 6},
         "timings": {"prompt_n": 4, "prompt_ms": 1.234, "prompt_per_token_ms": 0.3085, "predicted_n": 2,
                     "predicted_ms": 10.5, "predicted_per_second": 190.47619047619048, "draft_n": 6,
                     "draft_n_accepted": 3}},
    ],
    "sglang-reasoning": [
        {"id": "7f", "object": "chat.completion.chunk", "created": 1733000000, "model": "m",
         "choices": [{"index": 0, "delta": {"role": None, "content": None, "reasoning_content": "Let"},
                      "logprobs": None, "finish_reason": None, "matched_stop": None}], "usage": None},
        {"id": "7f", "object": "chat.completion.chunk", "created": 1733000000, "model": "m",
         "choices": [{"index": 0, "delta": {"role": None, "content": "Yes", "reasoning_content": None},
                      "logprobs": None, "finish_reason": "stop", "matched_stop": 151645}], "usage": None},
        {"id": "7f", "object": "chat.completion.chunk", "created": 1733000000, "model": "m", "choices": [],
         "usage": {"prompt_tokens": 9, "total_tokens": 11, "completion_tokens": 2},
         "metrics": {"speculative_decoding": {"num_draft_tokens": 4, "num_accepted_draft_tokens": 1,
                                              "num_spec_steps": 2}}},
    ],
}


@pytest.mark.parametrize("engine", sorted(ENGINE_STREAMS))
@pytest.mark.parametrize("framing", ["one piece per event", "one piece", "byte by byte", "crlf"])
def test_engine_shaped_streams_parse_as_before(engine: str, framing: str) -> None:
    events = [json.dumps(obj, separators=(",", ":")) for obj in ENGINE_STREAMS[engine]] + ["[DONE]"]
    blobs = [f"data: {e}\n\n".encode() for e in events]
    if framing == "crlf":
        blobs = [b.replace(b"\n", b"\r\n") for b in blobs]
    if framing == "one piece":
        blobs = [b"".join(blobs)]
    if framing == "byte by byte":
        blobs = [bytes([c]) for c in b"".join(blobs)]
    raw = RawStream(t_start=10.0, t_sent=10.001, t_end=11.0, status=200,
                    pieces=[(10.1 + i * 0.001, b) for i, b in enumerate(blobs)])
    assert_same_record(raw, 10.0)
    assert parse_stream(copy.deepcopy(raw), 10.0).ok


counts = st.one_of(st.none(), st.integers(-3, 40), st.sampled_from([10**9, 10**30, True, 1.5, "7", float("nan")]))
texts = st.one_of(st.none(), st.just(""), st.text(max_size=2), st.integers(0, 3))
deltas = st.one_of(st.none(), st.just("oops"), st.fixed_dictionaries({}, optional={
    "content": texts, "reasoning_content": texts, "reasoning": texts, "role": st.just("assistant")}))
choices = st.one_of(st.integers(0, 3), st.fixed_dictionaries({}, optional={
    "index": st.integers(0, 1), "text": texts, "delta": deltas,
    "finish_reason": st.one_of(st.none(), st.sampled_from(["stop", "length", "", 0]))}))
chunk_objects = st.fixed_dictionaries({}, optional={
    "id": st.one_of(st.text(max_size=3), st.integers(0, 3)),
    "choices": st.one_of(st.lists(choices, max_size=3), st.none(), st.integers(0, 3), st.just("x")),
    "usage": st.one_of(st.none(), st.just("lots"), st.fixed_dictionaries(
        {}, optional={"completion_tokens": counts, "prompt_tokens": counts})),
    "timings": st.one_of(st.just({}), st.fixed_dictionaries({"draft_n": counts}, optional={"draft_n_accepted": counts})),
    "metrics": st.fixed_dictionaries({"speculative_decoding": st.fixed_dictionaries(
        {"num_draft_tokens": counts}, optional={"num_accepted_draft_tokens": counts, "num_spec_steps": counts})}),
    "error": st.one_of(st.text(max_size=3), st.fixed_dictionaries({"message": st.text(max_size=3)})),
})
raw_payloads = st.sampled_from(["[DONE]", " [DONE] ", "\xa0[DONE]", "\x1c[DONE]", "[DONE]x", "{nope", "5", "[1]",
                                "null", '"s"', "", '{"choices": [{"text": "a"}], "usage": {"completion_tokens": NaN}}',
                                '{"choices": [{"text": "a"}], "usage": {"completion_tokens": 123456789012345678901}}',
                                '{"id": "\\ud800", "choices": [{"text": "\\udc00"}]}'])


@st.composite
def good_streams(draw: st.DrawFn) -> list[str]:
    """A well-formed stream (so the ``ok`` path is covered too), with or without per-chunk usage."""
    n = draw(st.integers(1, 6))
    usage = draw(st.booleans())
    out = []
    for i in range(n):
        obj: dict[str, Any] = {"id": "r", "choices": [{"index": 0, "text": draw(st.sampled_from(["a", "", "é"]))}]}
        if usage:
            obj["usage"] = {"prompt_tokens": 3, "completion_tokens": i + 1}
        out.append(json.dumps(obj))
    out.append(json.dumps({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": n}}))
    return [*out, "[DONE]"]


@st.composite
def hostile_streams(draw: st.DrawFn) -> RawStream:
    if draw(st.booleans()):
        payloads = draw(good_streams())
    else:
        payloads = draw(st.lists(st.one_of(chunk_objects.map(json.dumps), raw_payloads), max_size=7))
    lines = []
    for p in payloads:
        if draw(st.integers(0, 6)) == 0 and p.startswith('{"'):
            p = p.replace(", ", ",\n")  # a multi-line event: several data lines
        lines.append("\n".join("data: " + line for line in p.split("\n")))
    body = "".join(line + "\n\n" for line in lines).encode("utf-8", errors="surrogatepass")
    bend = draw(st.integers(0, 6))
    if bend == 0:
        body = body.replace(b"\n", b"\r\n")
    elif bend == 1:
        body = b": keep-alive\n\n" + body
    elif bend == 2:
        body = body[:-1]  # no final blank line
    elif bend == 3 and body:
        body = body[: draw(st.integers(0, len(body)))]
    cuts = sorted(set(draw(st.lists(st.integers(0, len(body)), max_size=10))))
    parts = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    t, pieces = 1.0, []
    for part in parts:
        t += draw(st.sampled_from([0.0, 0.01, 0.02, -0.005]))  # sometimes equal, sometimes going backwards
        pieces.append((t, part))
    return RawStream(t_start=0.5, t_sent=draw(st.sampled_from([None, 0.6, 9.0])),
                     t_end=draw(st.sampled_from([None, 1.0, 99.0])),
                     status=draw(st.sampled_from([200, 200, 200, 500, None])),
                     error=draw(st.sampled_from([None, None, "", "timeout: no complete response within 5 s"])),
                     pieces=pieces,
                     events=draw(st.sampled_from([[], [], [(0.9, '{"choices": [{"text": "z"}]}')]])))


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_streams())
def test_hostile_streams_parse_as_before(raw: RawStream) -> None:
    assert_same_record(raw, 0.25)
