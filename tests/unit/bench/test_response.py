"""Raw streams → raw request records: token deltas, usage, errors."""

from __future__ import annotations

import json
from typing import Any

import pytest

from benchledger.bench.client import RawStream
from benchledger.bench.response import not_a_stream, parse_stream


def ev(t: float, obj: Any) -> tuple[float, str]:
    return (t, obj if isinstance(obj, str) else json.dumps(obj))


def chunk(text: str, cum: int | None = None, **kw: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {"id": "r1", "choices": [{"index": 0, "text": text}], **kw}
    if cum is not None:
        obj["usage"] = {"prompt_tokens": 5, "completion_tokens": cum}
    return obj


def raw(events: list[tuple[float, str]], status: int = 200, error: str | None = None) -> RawStream:
    return RawStream(t_start=100.0, t_sent=100.001, t_end=101.0, status=status, events=events, error=error)


def test_continuous_usage_gives_token_deltas() -> None:
    r = parse_stream(raw([ev(100.1, chunk("ab", 2)), ev(100.2, chunk("c", 3)), ev(100.3, chunk("", 3)),
                          ev(100.3, {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 3}}),
                          ev(100.3, "[DONE]")]), origin=100.0)
    assert r.ok and r.error is None
    assert r.chunk_tokens == [2, 1] and r.chunk_token_source == "continuous_usage"
    assert r.chunk_times == [100.1 - 100.0, 100.2 - 100.0]
    assert r.output_tokens == 3 and r.output_tokens_source == "usage" and r.input_tokens == 5
    assert r.response_id == "r1"


def test_counted_when_no_per_chunk_usage_and_llamacpp_timings() -> None:
    final = {"choices": [{"index": 0, "text": "", "finish_reason": "length"}],
             "usage": {"prompt_tokens": 5, "completion_tokens": 4}, "timings": {"draft_n": 6, "draft_n_accepted": 3}}
    r = parse_stream(raw([ev(100.1, chunk("a")), ev(100.2, chunk("b")), ev(100.3, final), ev(100.3, "[DONE]")]),
                     origin=100.0)
    assert r.chunk_tokens == [1, 1] and r.chunk_token_source == "counted"
    assert r.output_tokens == 4 and r.finish_reason == "length"
    assert r.spec is not None and r.spec.model_dump(exclude_none=True) == {"kind": "llamacpp-timings", "draft_tokens": 6,
                                                                       "accepted_tokens": 3}


def test_chat_delta_and_vllm_per_request_metrics() -> None:
    first = {"choices": [{"index": 0, "delta": {"role": "assistant"}}]}
    body = {"choices": [{"index": 0, "delta": {"content": "hi"}}]}
    last = {"choices": [], "usage": {"completion_tokens": 1},
            "metrics": {"speculative_decoding": {"num_draft_tokens": 9, "num_accepted_draft_tokens": 6,
                                                 "num_spec_steps": 3}}}
    r = parse_stream(raw([ev(100.05, first), ev(100.1, body), ev(100.2, last), ev(100.2, "[DONE]")]), 100.0)
    assert r.chunk_times == [100.1 - 100.0]  # the role-only chunk is not generated content
    assert r.spec is not None and r.spec.drafts == 3 and r.spec.accepted_tokens == 6


def test_invalid_json_and_error_chunk_and_missing_done() -> None:
    bad = parse_stream(raw([ev(100.1, chunk("a")), ev(100.2, "{nope"), ev(100.3, "[DONE]")]), 100.0)
    assert not bad.ok and bad.error.startswith("invalid JSON in SSE chunk")
    assert bad.chunk_times == [100.1 - 100.0]  # what arrived is kept
    err = parse_stream(raw([ev(100.1, {"error": {"message": "boom"}})]), 100.0)
    assert not err.ok and "boom" in err.error
    cut = parse_stream(raw([ev(100.1, chunk("a"))]), 100.0)
    assert not cut.ok and cut.error == "stream ended without [DONE]"


def test_http_error_status() -> None:
    r = parse_stream(raw([], status=429, error="HTTP 429: slow down"), 100.0)
    assert not r.ok and r.http_status == 429 and r.error == "HTTP 429: slow down"


def test_implausible_values_fail_the_request_with_a_reason() -> None:
    back = parse_stream(raw([ev(100.1, chunk("ab", 2)), ev(100.2, chunk("c", 1)), ev(100.3, "[DONE]")]), 100.0)
    assert not back.ok and back.error == "bad chunk: usage.completion_tokens went backwards (2 → 1)"
    huge = parse_stream(raw([ev(100.1, chunk("a", 10**9)), ev(100.3, "[DONE]")]), 100.0)
    assert not huge.ok and huge.error == "bad chunk: implausible usage.completion_tokens: 1000000000"
    flag = parse_stream(raw([ev(100.1, chunk("a", 1)), ev(100.2, {"choices": [], "usage": {"completion_tokens": True}}),
                             ev(100.3, "[DONE]")]), 100.0)
    assert not flag.ok and flag.error == "bad chunk: usage.completion_tokens is not an integer: True"
    unordered = parse_stream(raw([ev(100.2, chunk("a")), ev(100.1, chunk("b")), ev(100.3, "[DONE]")]), 100.0)
    assert not unordered.ok and unordered.error == "bad chunk: chunk arrival times go backwards"
    early_end = RawStream(t_start=100.0, t_sent=100.5, t_end=100.2, status=200,
                          events=[ev(100.6, chunk("a")), ev(100.6, "[DONE]")])
    assert parse_stream(early_end, 100.0).error == ("implausible times: the response ends before it was sent or "
                                                     "before its last chunk")


@pytest.mark.parametrize(("obj", "error"), [
    ({"choices": [7]}, "bad chunk: a choice is not a JSON object: 7"),
    ({"choices": [{"text": 5}]}, "bad chunk: choice text is not a string: 5"),
    ({"choices": [{"text": "a"}], "usage": "lots"}, "bad chunk: usage is not a JSON object: 'lots'"),
    ({"choices": [{"text": "a"}], "metrics": {"speculative_decoding": {"num_draft_tokens": -3}}},
     "bad chunk: implausible metrics.speculative_decoding.num_draft_tokens: -3"),
])
def test_chunks_of_the_wrong_shape_fail_the_request(obj: dict[str, Any], error: str) -> None:
    r = parse_stream(raw([ev(100.1, chunk("a")), ev(100.2, obj), ev(100.3, "[DONE]")]), 100.0)
    assert not r.ok and r.error == error
    assert r.chunk_times[0] == 100.1 - 100.0  # what arrived before is kept


def test_answers_that_are_not_streams_are_named() -> None:
    assert not_a_stream(b'{"choices": []}') is not None and "one JSON body" in str(not_a_stream(b' {"a": 1}'))
    assert "HTML" in str(not_a_stream(b"<!DOCTYPE html><html>"))
    assert not_a_stream(b'data: {"choices": []}\n\n') is None and not_a_stream(b"") is None
