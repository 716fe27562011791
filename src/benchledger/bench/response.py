"""Turn a raw stream (timestamped SSE events) into the raw per-request record written to ``requests.jsonl``.

Times are seconds since the run's clock origin. Token deltas per chunk come from ``usage`` on every chunk
(``continuous_usage_stats``) when the server sends it, else each chunk with content counts as one token and the
record says ``chunk_token_source: "counted"``. The total output count is the server's final ``usage`` when
present (``output_tokens_source: "usage"``). Per-response speculative fields are kept as served: llama.cpp
``timings.draft_n`` / ``draft_n_accepted``, vLLM ``metrics.speculative_decoding``.
"""

from __future__ import annotations

import json
from typing import Any

from benchledger.bench.client import CONTENT_KEYS, RawStream


def _content(choice: dict[str, Any]) -> str:
    if isinstance(choice.get("text"), str):
        return str(choice["text"])
    delta = choice.get("delta") or {}
    for key in CONTENT_KEYS:
        value = delta.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def parse_stream(raw: RawStream, origin: float) -> dict[str, Any]:
    """The raw per-request record (see module doc). ``ok`` is True only for a complete, error-free stream."""
    rec: dict[str, Any] = {
        "t_start": raw.t_start - origin,
        "t_sent": None if raw.t_sent is None else raw.t_sent - origin,
        "t_end": None if raw.t_end is None else raw.t_end - origin,
        "http_status": raw.status,
        "chunk_times": [],
        "chunk_tokens": [],
        "chunk_token_source": "counted",
        "output_tokens": 0,
        "output_tokens_source": "counted",
        "input_tokens": None,
        "finish_reason": None,
        "spec": None,
        "response_id": None,
        "error": raw.error,
    }
    raw.decode()
    times: list[float] = rec["chunk_times"]
    tokens: list[int] = rec["chunk_tokens"]
    usage_cum: int | None = None
    continuous = True
    saw_done = False
    final_usage: dict[str, Any] | None = None
    for t, data in raw.events:
        if data.strip() == "[DONE]":
            saw_done = True
            continue
        try:
            obj = json.loads(data)
        except ValueError:
            rec["error"] = rec["error"] or f"invalid JSON in SSE chunk: {data[:120]!r}"
            continue
        if not isinstance(obj, dict):
            rec["error"] = rec["error"] or f"SSE chunk is not a JSON object: {data[:120]!r}"
            continue
        if "error" in obj:
            err = obj["error"]
            msg = err.get("message", err) if isinstance(err, dict) else err
            rec["error"] = rec["error"] or f"server error in stream: {msg}"
            continue
        if rec["response_id"] is None and isinstance(obj.get("id"), str):
            rec["response_id"] = obj["id"]
        usage = obj.get("usage")
        choices = obj.get("choices") or []
        text = "".join(_content(c) for c in choices if isinstance(c, dict))
        for c in choices:
            if isinstance(c, dict) and c.get("finish_reason"):
                rec["finish_reason"] = c["finish_reason"]
        if isinstance(usage, dict):
            final_usage = usage
        if text:
            if isinstance(usage, dict) and isinstance(usage.get("completion_tokens"), int):
                cum = int(usage["completion_tokens"])
                delta = cum - (usage_cum or 0)
                usage_cum = cum
            else:
                continuous = False
                delta = 1
            times.append(t - origin)
            tokens.append(delta)
        # a chunk without text (held-back partial UTF-8, a special token) leaves usage_cum alone: its tokens are
        # counted in the next chunk with text, when the reader sees them
        timings = obj.get("timings")
        if isinstance(timings, dict) and "draft_n" in timings:
            rec["spec"] = {
                "kind": "llamacpp-timings",
                "draft_tokens": timings.get("draft_n"),
                "accepted_tokens": timings.get("draft_n_accepted"),
            }
        metrics = obj.get("metrics")
        if isinstance(metrics, dict) and isinstance(metrics.get("speculative_decoding"), dict):
            sd = metrics["speculative_decoding"]
            rec["spec"] = {
                "kind": "vllm-per-request",
                "draft_tokens": sd.get("num_draft_tokens"),
                "accepted_tokens": sd.get("num_accepted_draft_tokens"),
                "drafts": sd.get("num_spec_steps"),
            }
    if continuous and usage_cum is not None and tokens:
        rec["chunk_token_source"] = "continuous_usage"
    elif usage_cum is not None:
        # mixed: some chunks lacked usage; fall back to counting every content chunk as one token
        rec["chunk_tokens"] = [1] * len(tokens)
    if final_usage is not None and isinstance(final_usage.get("completion_tokens"), int):
        rec["output_tokens"] = int(final_usage["completion_tokens"])
        rec["output_tokens_source"] = "usage"
        if isinstance(final_usage.get("prompt_tokens"), int):
            rec["input_tokens"] = int(final_usage["prompt_tokens"])
    else:
        rec["output_tokens"] = sum(rec["chunk_tokens"])
    if raw.status == 200 and rec["error"] is None and not saw_done:
        rec["error"] = "stream ended without [DONE]"
    rec["ok"] = rec["error"] is None and raw.status == 200
    return rec


__all__ = ["parse_stream"]
