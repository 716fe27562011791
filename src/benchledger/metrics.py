"""Serving metrics as pure functions of the raw per-request records (no I/O, no clocks).

Definitions (stated in every summary under ``definitions``; keys named like vLLM ``bench serve``'s mean what
vLLM's mean):

- TTFT: first chunk with generated content − request sent.
- E2E latency: last chunk with generated content − request sent (vLLM's ``latency``); the end of the HTTP body
  (``t_end``, after the usage chunk and ``[DONE]``) is not part of it.
- TPOT (vLLM's): per request (E2E − TTFT) / (output tokens − 1); requests with ≤ 1 output token are left out.
- TPOT after the first chunk (benchledger's decode interval, own key): per request (last content chunk − first
  content chunk) / (output tokens − tokens in the first chunk); it does not charge a bundled first chunk's
  tokens to the decode time. Requests where that denominator is < 1 are left out.
- ITL per chunk: gaps between consecutive content chunks, pooled over requests (vLLM's ``itl``).
- ITL per token: each chunk gap divided by that chunk's token delta, one sample per token (labelled; it spreads a
  chunk's gap evenly, so jitter inside a verify step is invisible). Exact only where every chunk carried usage
  (``continuous_usage``); otherwise each content chunk counts as one token and the summary says approximate.
- Client-coalesced share: consecutive content chunks with identical client timestamps (read in one burst) /
  all consecutive-chunk gaps — the client was behind the socket and could not see the gap.
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
    "tpot": "vLLM's: per request (e2el − ttft) / (output tokens − 1); requests with ≤ 1 output token left out",
    "tpot_after_first_chunk": "benchledger's decode interval: per request (last content chunk − first content "
    "chunk) / (output tokens − tokens in the first chunk)",
    "itl": "per chunk: gap between consecutive content chunks, pooled over requests",
    "itl_per_token": "per token: chunk gap / chunk token delta, one sample per token; exact only with per-chunk "
    "usage (itl_per_token_basis), else every content chunk counts as one token (approximate)",
    "e2el": "last content chunk − request sent (the end of the HTTP body is not part of it)",
    "client_coalesced_chunk_share": "share of consecutive content-chunk gaps with identical client timestamps "
    "(read in one burst: the client was behind)",
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
    """Seconds from send to the last content chunk (vLLM's latency), or None."""
    if not rec["chunk_times"] or rec["t_sent"] is None:
        return None
    return float(rec["chunk_times"][-1] - rec["t_sent"])


def tpot(rec: Record) -> float | None:
    """vLLM's TPOT: (E2E − TTFT) / (output tokens − 1) seconds, or None with ≤ 1 output token."""
    n = int(rec["output_tokens"])
    if not rec["chunk_times"] or n <= 1:
        return None
    return float(rec["chunk_times"][-1] - rec["chunk_times"][0]) / (n - 1)


def tpot_after_first_chunk(rec: Record) -> float | None:
    """Seconds per output token after the first chunk, or None when fewer than 1 token follows it."""
    if not rec["chunk_times"]:
        return None
    rest = int(rec["output_tokens"]) - int(rec["chunk_tokens"][0])
    if rest < 1:
        return None
    return float(rec["chunk_times"][-1] - rec["chunk_times"][0]) / rest


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


def coalesced_gaps(rec: Record) -> tuple[int, int]:
    """(gaps between consecutive content chunks with identical timestamps, all such gaps)."""
    t = rec["chunk_times"]
    return sum(1 for a, b in itertools.pairwise(t) if b == a), max(len(t) - 1, 0)


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
    tpots_after = [v for r in ok if (v := tpot_after_first_chunk(r)) is not None]
    e2els = [v for r in ok if (v := e2e_latency(r)) is not None]
    itls = [g for r in ok for g in itl_per_chunk(r)]
    itls_tok = [g for r in ok for g in itl_per_token(r)]
    out_tokens = sum(int(r["output_tokens"]) for r in ok)
    in_tokens = sum(int(r["input_tokens"] or 0) for r in ok)
    chunks = sum(len(r["chunk_times"]) for r in ok)
    coalesced = [coalesced_gaps(r) for r in ok]
    same, gaps = sum(c[0] for c in coalesced), sum(c[1] for c in coalesced)
    sources = {r.get("chunk_token_source") for r in ok}
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
    for name, values in (("ttft", ttfts), ("tpot", tpots), ("tpot_after_first_chunk", tpots_after),
                         ("itl", itls), ("e2el", e2els), ("itl_per_token", itls_tok)):
        for stat, value in _ms(describe(values)).items():
            summary[f"{stat}_{name}_ms"] = value
    summary["itl_per_token_basis"] = (
        None if not ok else "continuous_usage" if sources == {"continuous_usage"}
        else "approximate: no per-chunk usage, every content chunk counted as one token")
    summary["tokens_per_chunk"] = out_tokens / chunks if chunks else math.nan
    summary["client_coalesced_chunk_share"] = same / gaps if gaps else None
    summary["tpot_excluded_requests"] = len(ok) - len(tpots)
    summary["tpot_after_first_chunk_excluded_requests"] = len(ok) - len(tpots_after)
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
    "coalesced_gaps",
    "describe",
    "e2e_latency",
    "itl_per_chunk",
    "itl_per_token",
    "percentile",
    "summarize",
    "tpot",
    "tpot_after_first_chunk",
    "ttft",
]
