"""Serving metrics as pure functions of the raw per-request records (no I/O, no clocks).

Definitions (stated in every summary under ``definitions``):

- TTFT: first chunk with generated content − request sent.
- TPOT (per request): (end − first content chunk) / (output tokens − tokens in the first chunk); requests where
  that denominator is < 1 are left out (and counted in a warning).
- ITL per chunk: gaps between consecutive content chunks, pooled over requests (vLLM's ``itl``).
- ITL per token: each chunk gap divided by that chunk's token delta, one sample per token (labelled; it spreads a
  chunk's gap evenly, so jitter inside a verify step is invisible).
- E2E latency: end of response − request sent.
- Window (``duration``): the sum over rounds of the span from the first send to the last end of this arm's
  measured requests in that round (drain included; idle time while other arms run excluded).
- Throughputs: Σ tokens of completed requests / window.
- Acceptance (counters, windowed): rate = Δaccepted/Δdraft_tokens; mean length = 1 + Δaccepted/Δdrafts (bonus
  token included); per-position = Δaccepted_pos[i]/Δdrafts (unconditional survival).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

Record = Mapping[str, Any]
STATS = ("mean", "median", "p90", "p99", "std")

DEFINITIONS: dict[str, str] = {
    "ttft": "first chunk with generated content − request sent",
    "tpot": "per request: (end − first content chunk) / (output tokens − tokens in first chunk)",
    "itl": "per chunk: gap between consecutive content chunks, pooled over requests",
    "itl_per_token": "per token: chunk gap / chunk token delta, one sample per token",
    "e2el": "end of response − request sent",
    "duration": "Σ over rounds of (last end − first send) of this arm's measured requests; drain included",
    "output_throughput": "Σ output tokens of completed requests / duration",
    "acceptance": "engine counters differenced over the measured window: rate = Δaccepted/Δdraft_tokens, "
    "length = 1 + Δaccepted/Δdrafts, per-position = Δaccepted_pos/Δdrafts",
}


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default); ``q`` in 0..100. NaN for no values."""
    if not values:
        return math.nan
    data = sorted(values)
    pos = (len(data) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def describe(values: Sequence[float]) -> dict[str, float]:
    """mean, median, p90, p99, std (population) of ``values``; NaN when empty."""
    if not values:
        return dict.fromkeys(STATS, math.nan)
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / len(values)
    return {
        "mean": mean,
        "median": percentile(values, 50),
        "p90": percentile(values, 90),
        "p99": percentile(values, 99),
        "std": math.sqrt(var),
    }


def ttft(rec: Record) -> float | None:
    """Seconds from send to the first content chunk, or None."""
    if not rec["chunk_times"] or rec["t_sent"] is None:
        return None
    return float(rec["chunk_times"][0] - rec["t_sent"])


def e2e_latency(rec: Record) -> float | None:
    """Seconds from send to end of response, or None."""
    if rec["t_sent"] is None or rec["t_end"] is None:
        return None
    return float(rec["t_end"] - rec["t_sent"])


def tpot(rec: Record) -> float | None:
    """Seconds per output token after the first chunk, or None when fewer than 1 token follows it."""
    if not rec["chunk_times"] or rec["t_end"] is None:
        return None
    rest = int(rec["output_tokens"]) - int(rec["chunk_tokens"][0])
    if rest < 1:
        return None
    return float(rec["t_end"] - rec["chunk_times"][0]) / rest


def itl_per_chunk(rec: Record) -> list[float]:
    """Gaps between consecutive content chunks (seconds)."""
    t = rec["chunk_times"]
    return [float(b - a) for a, b in itertools.pairwise(t)]


def itl_per_token(rec: Record) -> list[float]:
    """Each chunk gap divided by its token delta, repeated once per token."""
    t, n = rec["chunk_times"], rec["chunk_tokens"]
    out: list[float] = []
    for i in range(1, len(t)):
        k = max(int(n[i]), 1)
        out.extend([float(t[i] - t[i - 1]) / k] * k)
    return out


def active_window(records: Iterable[Record]) -> float:
    """Σ over rounds of (last end − first send) of the given records (seconds)."""
    spans: dict[Any, tuple[float, float]] = {}
    for rec in records:
        if rec["t_sent"] is None or rec["t_end"] is None:
            continue
        key = rec.get("round", 0)
        lo, hi = spans.get(key, (math.inf, -math.inf))
        spans[key] = (min(lo, rec["t_sent"]), max(hi, rec["t_end"]))
    return sum(hi - lo for lo, hi in spans.values() if hi > lo)


def acceptance_from_counters(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any] | None:
    """Windowed acceptance from two normalised counter snapshots (see ``bench.scrape``); None if unavailable."""
    if before.get("draft_tokens") is None or after.get("draft_tokens") is None:
        return None
    d_tokens = after["draft_tokens"] - before["draft_tokens"]
    d_acc = after["accepted"] - before["accepted"]
    d_drafts = None
    if after.get("drafts") is not None and before.get("drafts") is not None:
        d_drafts = after["drafts"] - before["drafts"]
    per_pos: list[float] = []
    if d_drafts and after.get("per_position"):
        for pos in sorted(after["per_position"], key=int):
            delta = after["per_position"][pos] - before.get("per_position", {}).get(pos, 0.0)
            per_pos.append(delta / d_drafts)
    return {
        "num_drafts": d_drafts,
        "draft_tokens": d_tokens,
        "accepted_tokens": d_acc,
        "acceptance_rate": d_acc / d_tokens if d_tokens > 0 else None,
        "acceptance_length": 1 + d_acc / d_drafts if d_drafts else None,
        "per_position": per_pos,
    }


def acceptance_from_responses(records: Iterable[Record]) -> dict[str, Any] | None:
    """Pooled acceptance from per-response fields (llama.cpp ``timings``, vLLM per-request metrics)."""
    drafted = accepted = 0
    drafts: int | None = 0
    n = 0
    for rec in records:
        spec = rec.get("spec")
        if not spec or spec.get("draft_tokens") is None:
            continue
        n += 1
        drafted += int(spec["draft_tokens"])
        accepted += int(spec.get("accepted_tokens") or 0)
        if drafts is not None and spec.get("drafts") is not None:
            drafts += int(spec["drafts"])
        else:
            drafts = None
    if n == 0:
        return None
    return {
        "requests": n,
        "draft_tokens": drafted,
        "accepted_tokens": accepted,
        "acceptance_rate": accepted / drafted if drafted else None,
        "acceptance_length": 1 + accepted / drafts if drafts else None,
    }


def _ms(stats: dict[str, float]) -> dict[str, float]:
    return {k: v * 1000.0 for k, v in stats.items()}


def summarize(
    records: Sequence[Record], duration: float, slos_ms: Mapping[str, float] | None = None
) -> dict[str, Any]:
    """The vLLM-``bench serve``-named summary of one arm's measured records over ``duration`` seconds."""
    ok = [r for r in records if r["ok"]]
    ttfts = [v for r in ok if (v := ttft(r)) is not None]
    tpots = [v for r in ok if (v := tpot(r)) is not None]
    e2els = [v for r in ok if (v := e2e_latency(r)) is not None]
    itls = [g for r in ok for g in itl_per_chunk(r)]
    itls_tok = [g for r in ok for g in itl_per_token(r)]
    out_tokens = sum(int(r["output_tokens"]) for r in ok)
    in_tokens = sum(int(r["input_tokens"] or 0) for r in ok)
    chunks = sum(len(r["chunk_times"]) for r in ok)
    per = duration if duration > 0 else math.nan
    summary: dict[str, Any] = {
        "completed": len(ok),
        "failed": len(records) - len(ok),
        "duration": duration,
        "total_input_tokens": in_tokens,
        "total_output_tokens": out_tokens,
        "request_throughput": len(ok) / per,
        "output_throughput": out_tokens / per,
        "total_token_throughput": (in_tokens + out_tokens) / per,
    }
    for name, values in (("ttft", ttfts), ("tpot", tpots), ("itl", itls), ("e2el", e2els)):
        for stat, value in _ms(describe(values)).items():
            summary[f"{stat}_{name}_ms"] = value
    for stat, value in _ms(describe(itls_tok)).items():
        summary[f"{stat}_itl_per_token_ms"] = value
    summary["tokens_per_chunk"] = out_tokens / chunks if chunks else math.nan
    summary["tpot_excluded_requests"] = len(ok) - len(tpots)
    if slos_ms:
        good = sum(1 for r in ok if _meets(r, slos_ms))
        summary["request_goodput"] = good / per
        summary["goodput_slos_ms"] = dict(slos_ms)
    return summary


def _meets(rec: Record, slos_ms: Mapping[str, float]) -> bool:
    values = {"ttft_ms": ttft(rec), "tpot_ms": tpot(rec) or 0.0, "e2el_ms": e2e_latency(rec)}
    for key, limit in slos_ms.items():
        value = values.get(key)
        if value is None or value * 1000.0 > limit:
            return False
    return True


__all__ = [
    "DEFINITIONS",
    "acceptance_from_counters",
    "acceptance_from_responses",
    "active_window",
    "describe",
    "e2e_latency",
    "itl_per_chunk",
    "itl_per_token",
    "percentile",
    "summarize",
    "tpot",
    "ttft",
]
