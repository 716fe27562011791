"""The stream parser as it was before the hot-path rewrite (``bench/response.py`` and ``RawStream.decode`` at
commit f6931d7), kept verbatim as the oracle of ``test_parse_equivalence.py``: the rewrite must give the same
record for every stream. Not used by the package."""

from __future__ import annotations

import json
from typing import Any

from benchledger.bench.client import RawStream
from benchledger.bench.rundata import RequestRecord, ResponseSpec
from benchledger.bench.sse import SSEParser
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


def reference_events(raw: RawStream) -> list[tuple[float, str]]:
    """``RawStream.decode`` as it was: ``raw.events`` then every piece fed to ``SSEParser`` (arrivals with one
    stamp as one feed), without changing ``raw``."""
    events = list(raw.events)
    pieces = raw.pieces
    if not pieces or raw.status != 200:
        return events
    sse = SSEParser()
    i, n = 0, len(pieces)
    while i < n:
        t, data = pieces[i]
        j = i + 1
        while j < n and pieces[j][0] == t:
            j += 1
        if j > i + 1:
            data = b"".join(p for _, p in pieces[i:j])
        for event in sse.feed(data):
            events.append((t, event.data))
        i = j
    last = pieces[-1][0]
    for event in sse.close():
        events.append((last, event.data))
    return events


def _head(raw: RawStream) -> bytes:
    """The first bytes of the (un-chunked) body, enough to classify it."""
    return b"".join(p for _, p in raw.pieces[:8])[:4096]


class _State:
    __slots__ = ("continuous", "final_usage", "saw_choices", "saw_done", "usage_cum")

    def __init__(self) -> None:
        self.usage_cum: int | None = None
        self.continuous = True
        self.saw_done = False
        self.saw_choices = False
        self.final_usage: dict[str, Any] | None = None


def _chunk(rec: RequestRecord, st: _State, t: float, obj: dict[str, Any]) -> None:
    """Account one decoded chunk into ``rec`` (raises BadChunk for a chunk that cannot be measured)."""
    if rec.response_id is None and isinstance(obj.get("id"), str):
        rec.response_id = obj["id"]
    usage = obj.get("usage")
    if usage is not None and not isinstance(usage, dict):
        raise BadChunk(f"usage is not a JSON object: {usage!r:.60}")
    choices = obj.get("choices")
    if choices is None:
        choices = []
    if not isinstance(choices, list):
        raise BadChunk(f"choices is not a list: {choices!r:.60}")
    answer = reasoning = ""
    for c in choices:
        a, r = _texts(c)
        answer, reasoning = answer + a, reasoning + r
        if c.get("finish_reason"):
            rec.finish_reason = str(c["finish_reason"])
    st.saw_choices = st.saw_choices or bool(choices)
    cum = _count(usage.get("completion_tokens"), "usage.completion_tokens") if usage else None
    if usage:
        st.final_usage = usage
    if answer or reasoning:
        if cum is not None:
            delta = cum - (st.usage_cum or 0)
            if delta < 0:
                raise BadChunk(f"usage.completion_tokens went backwards ({st.usage_cum} → {cum})")
            st.usage_cum = cum
        else:
            st.continuous = False
            delta = 1
        if rec.chunk_times and t < rec.chunk_times[-1]:
            raise BadChunk("chunk arrival times go backwards")
        rec.chunk_times.append(t)
        rec.chunk_tokens.append(delta)
        if reasoning:
            rec.reasoning_chunks += 1
        if answer and rec.t_first_answer is None:
            rec.t_first_answer = t
    # a chunk without text (held-back partial UTF-8, a special token) leaves usage_cum alone: its tokens are
    # counted in the next chunk with text, when the reader sees them
    spec = _spec(obj)
    if spec is not None:
        rec.spec = spec


def parse_stream(raw: RawStream, origin: float) -> RequestRecord:
    """The raw per-request record (see module doc). ``ok`` is True only for a complete, error-free stream."""
    rec = RequestRecord(
        t_start=raw.t_start - origin,
        t_sent=None if raw.t_sent is None else raw.t_sent - origin,
        t_end=None if raw.t_end is None else raw.t_end - origin,
        http_status=raw.status,
        error=raw.error,
    )
    head = _head(raw) if raw.status == 200 else b""
    events = reference_events(raw)
    st = _State()
    for t, data in events:
        if data.strip() == "[DONE]":
            st.saw_done = True
            continue
        try:
            obj = json.loads(data)
        except ValueError:
            rec.error = rec.error or f"invalid JSON in SSE chunk: {data[:120]!r}"
            continue
        if not isinstance(obj, dict):
            rec.error = rec.error or f"SSE chunk is not a JSON object: {data[:120]!r}"
            continue
        if "error" in obj:
            err = obj["error"]
            msg = err.get("message", err) if isinstance(err, dict) else err
            rec.error = rec.error or f"server error in stream: {msg}"
            continue
        try:
            _chunk(rec, st, t - origin, obj)
        except BadChunk as exc:
            rec.error = rec.error or f"bad chunk: {exc}"
    _totals(rec, st)
    if raw.status == 200 and rec.error is None:
        rec.error = _incomplete(rec, st, head, events)
    rec.ok = rec.error is None and raw.status == 200
    return rec


def _totals(rec: RequestRecord, st: _State) -> None:
    if st.continuous and st.usage_cum is not None and rec.chunk_tokens:
        rec.chunk_token_source = "continuous_usage"
    elif st.usage_cum is not None:
        # mixed: some chunks lacked usage; fall back to counting every content chunk as one token
        rec.chunk_tokens = [1] * len(rec.chunk_tokens)
    completion = prompt = None
    if st.final_usage is not None:
        try:
            completion = _count(st.final_usage.get("completion_tokens"), "usage.completion_tokens")
            prompt = _count(st.final_usage.get("prompt_tokens"), "usage.prompt_tokens")
        except BadChunk as exc:
            rec.error = rec.error or f"bad chunk: {exc}"
    if completion is not None:
        rec.output_tokens = completion
        rec.output_tokens_source = "usage"
        rec.input_tokens = prompt
    else:
        rec.output_tokens = sum(rec.chunk_tokens)
    if rec.t_first_answer is not None and rec.reasoning_chunks == 0:
        rec.t_first_answer = None  # only meaningful when the stream carried reasoning


def _incomplete(rec: RequestRecord, st: _State, head: bytes, events: list[tuple[float, str]]) -> str | None:
    """Why a 200 stream without a chunk-level error still cannot count as a completed request."""
    if not events:
        reason = not_a_stream(head)
        if reason is not None:
            return reason
    if not st.saw_done:
        return "stream ended without [DONE]"
    if rec.t_end is not None and rec.t_sent is not None and (
            rec.t_end < rec.t_sent or (rec.chunk_times and rec.chunk_times[-1] > rec.t_end)):
        return "implausible times: the response ends before it was sent or before its last chunk"
    if not rec.chunk_times:
        return ("no generated content: no chunk carried choices" if not st.saw_choices
                else "no generated content in the stream")
    return None


__all__ = ["parse_stream", "reference_events"]
