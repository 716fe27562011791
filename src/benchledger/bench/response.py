"""Turn a raw stream (timestamped SSE events) into the ``RequestRecord`` written to ``requests.jsonl``.

Times are seconds since the run's clock origin. Token deltas per chunk come from ``usage`` on every chunk
(``continuous_usage_stats``) when the server sends it, else each chunk with content counts as one token and the
record says ``chunk_token_source: "counted"``. The total output count is the server's final ``usage`` when
present (``output_tokens_source: "usage"``). Per-response speculative fields are kept as served, where the
engine profiles say they are (``benchledger.engines``: llama.cpp ``timings.draft_n`` / ``draft_n_accepted``, vLLM
``metrics.speculative_decoding``).

Generated text of any kind counts for ``chunk_times`` (so TTFT includes a reasoning model's thinking);
``t_first_answer`` marks the first answer (non-reasoning) chunk when the stream carried reasoning deltas.

One bad response costs only itself: a chunk of the wrong shape (``"choices": 5``, ``"delta": "oops"``, a
non-integer ``draft_n``), an implausible value (negative or absurd token counts, usage that goes backwards,
times out of order) or an answer that is not an SSE stream (plain JSON, HTML) fails that request with a reason.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

import orjson

from benchledger.bench.client import RawStream
from benchledger.bench.rundata import RequestRecord, ResponseSpec
from benchledger.engines import known_response_fields

ANSWER_KEYS = ("content",)
REASONING_KEYS = ("reasoning_content", "reasoning")
RESPONSE_FIELDS = known_response_fields()
MAX_PLAUSIBLE_TOKENS = 10_000_000
"""More tokens than any context window holds: a count above this is a server bug, not a measurement."""


class BadChunk(ValueError):
    """A chunk whose shape or values cannot be measured; the message is the request's error reason."""


def _count(value: Any, what: str) -> int | None:
    """A token count as served: None when absent, else a plausible non-negative integer (or BadChunk)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadChunk(f"{what} is not an integer: {value!r:.60}")
    if value < 0 or value > MAX_PLAUSIBLE_TOKENS:
        raise BadChunk(f"implausible {what}: {value}")
    return value


def _texts(choice: Any) -> tuple[str, str]:
    """(answer text, reasoning text) of one choice."""
    if not isinstance(choice, dict):
        raise BadChunk(f"a choice is not a JSON object: {choice!r:.60}")
    text = choice.get("text")
    if text is not None and not isinstance(text, str):
        raise BadChunk(f"choice text is not a string: {text!r:.60}")
    delta = choice.get("delta")
    if delta is None:
        return text or "", ""
    if not isinstance(delta, dict):
        raise BadChunk(f"choice delta is not a JSON object: {delta!r:.60}")
    parts = []
    for keys in (ANSWER_KEYS, REASONING_KEYS):
        found = ""
        for key in keys:
            value = delta.get(key)
            if isinstance(value, str) and value:
                found = value
                break
        parts.append(found)
    return (text or "") + parts[0], parts[1]


def _spec(obj: dict[str, Any]) -> ResponseSpec | None:
    """Per-response acceptance counts, where an engine profile says a response carries them."""
    for fields in RESPONSE_FIELDS:
        box = obj.get(fields.container)
        if isinstance(box, dict) and fields.nested is not None:
            box = box.get(fields.nested)
        if not isinstance(box, dict) or fields.draft_tokens not in box:
            continue
        where = f"{fields.container}.{fields.nested + '.' if fields.nested else ''}"
        return ResponseSpec(
            kind=fields.kind,
            draft_tokens=_count(box.get(fields.draft_tokens), where + fields.draft_tokens),
            accepted_tokens=_count(box.get(fields.accepted_tokens), where + fields.accepted_tokens),
            drafts=_count(box.get(fields.drafts), where + fields.drafts) if fields.drafts else None,
        )
    return None


def not_a_stream(head: bytes) -> str | None:
    """Why a 200 answer's first bytes are not an SSE stream (plain JSON, HTML), or None when they may be one."""
    text = head.lstrip().lower()
    if not text or b"data:" in text:
        return None
    if text.startswith((b"<!doctype", b"<html")) or b"<html" in text[:512]:
        return f"the server answered HTML, not an SSE stream: {head[:120]!r}"
    if text.startswith((b"{", b"[")):
        return f"the server answered one JSON body, not an SSE stream (was stream: true ignored?): {head[:120]!r}"
    return None


def _head(raw: RawStream) -> bytes:
    """The first bytes of the (un-chunked) body, enough to classify it."""
    return b"".join(p for _, p in raw.pieces[:8])[:4096]


def loads_chunk(data: bytes) -> Any:
    """``json.loads`` of an SSE payload's UTF-8 text (invalid bytes replaced), exactly, at orjson's speed.

    orjson (~5× faster per chunk) parses what it accepts to the same value as ``json.loads``, except that it
    turns an integer beyond 64 bits into a float; a payload with a run of 19 or more digits (the shortest such
    integer) therefore goes to ``json.loads``, as does everything orjson refuses (NaN, Infinity, ``1e400``, lone
    surrogates, invalid UTF-8). Raises ``ValueError`` where ``json.loads`` does (property test:
    ``tests/unit/bench/test_parse_equivalence.py``).
    """
    if _DIGIT_RUN not in data.translate(_DIGITS_AS_ZERO):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return json.loads(data.decode("utf-8", errors="replace"))


_DIGITS_AS_ZERO = bytes(48 if 48 <= i <= 57 else 32 for i in range(256))  # every digit → b"0", all else → b" "
_DIGIT_RUN = b"0" * 19
_UNPARSED = object()
_SPEC_CONTAINERS = frozenset(f.container for f in RESPONSE_FIELDS)


class _Stream:
    """What the chunks of one stream add up to, in plain values; ``parse_stream`` builds the record once."""

    __slots__ = ("chunk_times", "chunk_tokens", "continuous", "error", "final_usage", "finish_reason",
                 "reasoning_chunks", "response_id", "saw_choices", "saw_done", "spec", "t_first_answer", "usage_cum")

    def __init__(self, error: str | None) -> None:
        self.chunk_times: list[float] = []
        self.chunk_tokens: list[int] = []
        self.usage_cum: int | None = None
        self.continuous = True
        self.saw_done = False
        self.saw_choices = False
        self.final_usage: dict[str, Any] | None = None
        self.response_id: str | None = None
        self.finish_reason: str | None = None
        self.reasoning_chunks = 0
        self.t_first_answer: float | None = None
        self.spec: ResponseSpec | None = None
        self.error = error

    def chunk(self, t: float, obj: dict[str, Any]) -> None:
        """Account one decoded chunk (raises BadChunk for a chunk that cannot be measured; what it set before
        the bad field stays set)."""
        if self.response_id is None:
            rid = obj.get("id")
            if isinstance(rid, str):
                self.response_id = rid
        usage = obj.get("usage")
        if usage is not None and not isinstance(usage, dict):
            raise BadChunk(f"usage is not a JSON object: {usage!r:.60}")
        choices = obj.get("choices")
        if choices is None:
            choices = ()
        elif not isinstance(choices, list):
            raise BadChunk(f"choices is not a list: {choices!r:.60}")
        answer = reasoning = False
        for c in choices:
            if type(c) is dict and "delta" not in c and type(text := c.get("text")) is str:
                answer = answer or text != ""  # the completions shape, checked inline
            else:
                a, r = _texts(c)
                answer, reasoning = answer or bool(a), reasoning or bool(r)
            if c.get("finish_reason"):
                self.finish_reason = str(c["finish_reason"])
        if choices:
            self.saw_choices = True
        cum = None
        if usage:
            cum = usage.get("completion_tokens")
            if type(cum) is not int or not 0 <= cum <= MAX_PLAUSIBLE_TOKENS:
                cum = _count(cum, "usage.completion_tokens")
            self.final_usage = usage
        if answer or reasoning:
            if cum is not None:
                delta = cum - (self.usage_cum or 0)
                if delta < 0:
                    raise BadChunk(f"usage.completion_tokens went backwards ({self.usage_cum} → {cum})")
                self.usage_cum = cum
            else:
                self.continuous = False
                delta = 1
            times = self.chunk_times
            if times and t < times[-1]:
                raise BadChunk("chunk arrival times go backwards")
            times.append(t)
            self.chunk_tokens.append(delta)
            if reasoning:
                self.reasoning_chunks += 1
            if answer and self.t_first_answer is None:
                self.t_first_answer = t
        # a chunk without text (held-back partial UTF-8, a special token) leaves usage_cum alone: its tokens are
        # counted in the next chunk with text, when the reader sees them
        if not _SPEC_CONTAINERS.isdisjoint(obj):
            spec = _spec(obj)
            if spec is not None:
                self.spec = spec

    def feed(self, events: Sequence[tuple[float, bytes | str]], origin: float) -> None:
        """Account every SSE payload: ``[DONE]``, a chunk, or a reason to fail the request (its first reason
        is kept; the rest of the stream is still read)."""
        # orjson straight away when no payload has a run of 19 digits (see ``loads_chunk``): one check per stream
        direct = (bool(events) and isinstance(events[0][1], bytes)
                  and _DIGIT_RUN not in b" ".join([d for _, d in events]).translate(_DIGITS_AS_ZERO))  # type: ignore[misc]
        times, tokens, spec_free = self.chunk_times, self.chunk_tokens, _SPEC_CONTAINERS.isdisjoint
        for t, data in events:
            if data == b"[DONE]" or (
                    (b"[DONE]" in data if isinstance(data, bytes) else "[DONE]" in data)
                    and _text(data).strip() == "[DONE]"):
                self.saw_done = True
                continue
            obj: Any = _UNPARSED
            if direct:
                try:
                    obj = orjson.loads(data)
                except orjson.JSONDecodeError:
                    obj = _UNPARSED
            if obj is _UNPARSED:
                try:
                    obj = loads_chunk(data) if isinstance(data, bytes) else json.loads(data)
                except ValueError:
                    self.fail(f"invalid JSON in SSE chunk: {_text(data)[:120]!r}")
                    continue
            if not isinstance(obj, dict):
                self.fail(f"SSE chunk is not a JSON object: {_text(data)[:120]!r}")
                continue
            if "error" in obj:
                err = obj["error"]
                msg = err.get("message", err) if isinstance(err, dict) else err
                self.fail(f"server error in stream: {msg}")
                continue
            t -= origin
            if self.response_id is None and isinstance(rid := obj.get("id"), str):
                self.response_id = rid
            # The common chunk, accounted here exactly as ``chunk`` would: one choice with answer text and no
            # finish reason, usage absent or counting up, time not going back, no acceptance fields.
            choices, usage = obj.get("choices"), obj.get("usage")
            if type(choices) is list and len(choices) == 1 and type(c := choices[0]) is dict and (
                    ("delta" not in c and type(text := c.get("text")) is str and text) or (
                        c.get("text") is None and type(d := c.get("delta")) is dict
                        and type(a := d.get("content")) is str and a
                        and not d.get("reasoning_content") and not d.get("reasoning"))) and (
                    not c.get("finish_reason") and (not times or t >= times[-1]) and spec_free(obj)):
                if usage is None:
                    self.continuous = False
                    tokens.append(1)
                    times.append(t)
                    self.saw_choices = True
                    if self.t_first_answer is None:
                        self.t_first_answer = t
                    continue
                if (type(usage) is dict and type(cum := usage.get("completion_tokens")) is int
                        and (last := self.usage_cum or 0) <= cum <= MAX_PLAUSIBLE_TOKENS):
                    self.final_usage = usage
                    self.usage_cum = cum
                    tokens.append(cum - last)
                    times.append(t)
                    self.saw_choices = True
                    if self.t_first_answer is None:
                        self.t_first_answer = t
                    continue
            try:
                self.chunk(t, obj)
            except BadChunk as exc:
                self.fail(f"bad chunk: {exc}")

    def fail(self, reason: str) -> None:
        """The request's error is its first reason."""
        if not self.error:
            self.error = reason


def _text(data: bytes | str) -> str:
    return data if isinstance(data, str) else data.decode("utf-8", errors="replace")


def parse_stream(raw: RawStream, origin: float, **fields: Any) -> RequestRecord:
    """The raw per-request record (see module doc). ``ok`` is True only for a complete, error-free stream.

    ``fields`` are the record's other fields (phase, arm, …), set when the record is built, once, at the end.
    """
    head = _head(raw) if raw.status == 200 else b""
    events = raw.data_events()
    st = _Stream(raw.error)
    st.feed(events, origin)
    chunk_tokens = st.chunk_tokens
    source: Literal["counted", "continuous_usage"] = "counted"
    if st.continuous and st.usage_cum is not None and chunk_tokens:
        source = "continuous_usage"
    elif st.usage_cum is not None:
        # mixed: some chunks lacked usage; fall back to counting every content chunk as one token
        chunk_tokens = [1] * len(chunk_tokens)
    completion = prompt = None
    if st.final_usage is not None:
        try:
            completion = _count(st.final_usage.get("completion_tokens"), "usage.completion_tokens")
            prompt = _count(st.final_usage.get("prompt_tokens"), "usage.prompt_tokens")
        except BadChunk as exc:
            st.fail(f"bad chunk: {exc}")
    t_sent = None if raw.t_sent is None else raw.t_sent - origin
    t_end = None if raw.t_end is None else raw.t_end - origin
    if raw.status == 200 and st.error is None:
        st.error = _incomplete(st, t_sent, t_end, head, bool(events))
    return RequestRecord(
        t_start=raw.t_start - origin, t_sent=t_sent, t_end=t_end, http_status=raw.status,
        chunk_times=st.chunk_times, chunk_tokens=chunk_tokens, chunk_token_source=source,
        output_tokens=sum(chunk_tokens) if completion is None else completion,
        output_tokens_source="counted" if completion is None else "usage",
        input_tokens=prompt if completion is not None else None,
        t_first_answer=st.t_first_answer if st.reasoning_chunks else None,  # meaningful only with reasoning
        reasoning_chunks=st.reasoning_chunks, finish_reason=st.finish_reason, spec=st.spec,
        response_id=st.response_id, error=st.error, ok=st.error is None and raw.status == 200, **fields)


def _incomplete(st: _Stream, t_sent: float | None, t_end: float | None, head: bytes, any_events: bool) -> str | None:
    """Why a 200 stream without a chunk-level error still cannot count as a completed request."""
    if not any_events:
        reason = not_a_stream(head)
        if reason is not None:
            return reason
    if not st.saw_done:
        return "stream ended without [DONE]"
    times = st.chunk_times
    if t_end is not None and t_sent is not None and (t_end < t_sent or (times and times[-1] > t_end)):
        return "implausible times: the response ends before it was sent or before its last chunk"
    if not times:
        return ("no generated content: no chunk carried choices" if not st.saw_choices
                else "no generated content in the stream")
    return None


__all__ = ["MAX_PLAUSIBLE_TOKENS", "BadChunk", "loads_chunk", "not_a_stream", "parse_stream"]
