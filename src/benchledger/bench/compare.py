"""Paired comparison of each arm against the baseline with a bootstrap 95 % CI over rounds.

Rounds are the paired units: in every round each arm served the same prompts back to back. Only rounds that
every compared arm completed enter. Per resample (rounds drawn with replacement, the same draw for both arms):

- output throughput speedup = (Σ tokens_arm / Σ window_arm) / (Σ tokens_base / Σ window_base);
- TPOT speedup = mean TPOT_base / mean TPOT_arm (> 1 means the arm decodes faster), with benchledger's decode
  interval (``metrics.tpot_after_first_chunk``: a speculative arm's bundled first chunk is not charged to decode).

The verdict is "faster" / "slower" when the 95 % percentile interval excludes 1, else "no significant
difference" — a valid answer. Fewer than 3 paired rounds give no interval.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from benchledger.metrics import active_window
from benchledger.metrics import tpot_after_first_chunk as tpot

MIN_ROUNDS = 3


@dataclass(frozen=True)
class RoundStats:
    """One arm's totals in one round."""

    tokens: int
    window: float
    tpot_sum: float
    tpot_n: int


def round_stats(records: Sequence[Mapping[str, Any]]) -> dict[int, RoundStats]:
    """Per-round totals of one arm's measured records (rounds with a failed request are kept: errors count)."""
    by_round: dict[int, list[Mapping[str, Any]]] = {}
    for rec in records:
        by_round.setdefault(int(rec["round"]), []).append(rec)
    out = {}
    for r, recs in by_round.items():
        ok = [x for x in recs if x["ok"]]
        tpots = [v for x in ok if (v := tpot(x)) is not None]
        out[r] = RoundStats(
            tokens=sum(int(x["output_tokens"]) for x in ok),
            window=active_window(recs),
            tpot_sum=sum(tpots),
            tpot_n=len(tpots),
        )
    return out


def _ratio(base: Sequence[RoundStats], arm: Sequence[RoundStats]) -> tuple[float | None, float | None]:
    bw, aw = sum(s.window for s in base), sum(s.window for s in arm)
    thr = None
    if bw > 0 and aw > 0 and sum(s.tokens for s in base) > 0:
        thr = (sum(s.tokens for s in arm) / aw) / (sum(s.tokens for s in base) / bw)
    bn, an = sum(s.tpot_n for s in base), sum(s.tpot_n for s in arm)
    tp = None
    if bn and an and sum(s.tpot_sum for s in arm) > 0:
        tp = (sum(s.tpot_sum for s in base) / bn) / (sum(s.tpot_sum for s in arm) / an)
    return thr, tp


def _verdict(ci: tuple[float, float] | None) -> str:
    if ci is None:
        return f"no interval: fewer than {MIN_ROUNDS} paired rounds"
    if ci[0] > 1.0:
        return "faster"
    if ci[1] < 1.0:
        return "slower"
    return "no significant difference"


def _interval(samples: list[float]) -> tuple[float, float] | None:
    if len(samples) < 10:
        return None
    samples.sort()
    lo = samples[int(0.025 * (len(samples) - 1))]
    hi = samples[round(0.975 * (len(samples) - 1))]
    return (lo, hi)


def compare_arms(
    baseline: Sequence[Mapping[str, Any]],
    arm: Sequence[Mapping[str, Any]],
    *,
    resamples: int = 2000,
    seed: int = 0,
) -> dict[str, Any]:
    """Speedup of ``arm`` over ``baseline`` (throughput and TPOT) with bootstrap 95 % CIs over paired rounds."""
    base_rounds, arm_rounds = round_stats(baseline), round_stats(arm)
    paired = sorted(set(base_rounds) & set(arm_rounds))
    b = [base_rounds[r] for r in paired]
    a = [arm_rounds[r] for r in paired]
    thr, tp = _ratio(b, a) if paired else (None, None)
    thr_s: list[float] = []
    tp_s: list[float] = []
    if len(paired) >= MIN_ROUNDS:
        rng = random.Random(seed)
        n = len(paired)
        for _ in range(resamples):
            idx = [rng.randrange(n) for _ in range(n)]
            t1, t2 = _ratio([b[i] for i in idx], [a[i] for i in idx])
            if t1 is not None:
                thr_s.append(t1)
            if t2 is not None:
                tp_s.append(t2)
    out: dict[str, Any] = {"paired_rounds": len(paired), "resamples": resamples, "method": "paired bootstrap over rounds, percentile 95 % CI"}
    for key, est, samples in (("output_throughput_speedup", thr, thr_s), ("tpot_speedup", tp, tp_s)):
        ci = _interval(samples)
        out[key] = {"estimate": est, "ci95": list(ci) if ci else None, "verdict": _verdict(ci)}
    return out


__all__ = ["MIN_ROUNDS", "RoundStats", "compare_arms", "round_stats"]
