"""arms.speedup-exceeds-acceptance: a speculative arm cannot go faster than its acceptance allows;
arms.acceptance-above-k: a mean acceptance length cannot exceed k + 1.

A speculative step emits on average the mean acceptance length ``AL`` of tokens (bonus token included) and
costs at least one plain decode step (the verify pass reads every weight once, as a plain step does), so at the
same batch and concurrency the arm's throughput speedup over its baseline — or its TPOT ratio baseline / arm —
is at most ``AL``. Above ``AL × SPEEDUP_SLACK`` (the slack covers run-to-run noise between two separate runs)
is an error — unless the arm's own paired rounds (``Arm.paired_speedups``, ``benchledger bench``) put the
low end of that metric's 95 % CI at or below the bound: then the excess is within the noise the run measured
between its rounds, and the finding is a warning. ``AL`` is the stated mean length (the top of a stated range), else ``1 + Σ per-position rates``,
else ``1 + k × rate``. A TPOT ratio may exceed ``AL`` by what its first chunk leaves out (up to k + 1
tokens of n): its bound is widened by ``(n − 1) / (n − 1 − k)``, and not checked when n or k is unknown.
A step drafts k tokens and adds one, so ``AL > k + 1`` is an error too.
"""

from __future__ import annotations

from collections.abc import Iterator

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.schema import (
    METRICS,
    Acceptance,
    Arm,
    Benchmark,
    Quantity,
    condition_value,
    effective_workload,
)
from benchledger.schema.metrics import CENTRAL_STATS, to_canonical
from benchledger.schema.units import conversion

SCOPE = "record"  # findings of a record depend only on it (checks/__init__)
SPEEDUP_SLACK = 1.05
"""How far a speedup may exceed the mean acceptance length before it is an error (5 %: noise between two runs;
the bundled ledger's 71 checked pairs reach at most 0.81 of their acceptance length)."""


def check(ctx: AuditContext) -> Iterator[Finding]:
    for record in ctx.benchmarks:
        arms = {a.name: a for a in record.arms}
        for arm in record.arms:
            if arm.speculative is None or arm.acceptance is None:
                continue
            k = condition_value(arm.speculative.k)
            k_drafts = k if isinstance(k, int | float) and not isinstance(k, bool) else None
            length = acceptance_length(arm.acceptance, k_drafts)
            if length is None:
                continue
            if k_drafts is not None and length > k_drafts + 1 + 1e-9:
                yield Finding("arms.acceptance-above-k", "error", record.id, f"arms.{arm.name}.acceptance",
                              f"mean acceptance length {length:g} is above k + 1 = {k_drafts + 1:g} "
                              "(k drafted tokens plus the bonus token)")
            base = arms.get(arm.baseline or "")
            if base is None or base is arm or not _same_load(record, arm, base):
                continue
            tpot_factor = _tpot_burst_factor(record, arm, k_drafts)
            for label, speedup in speedups(arm, base):
                bound = length * SPEEDUP_SLACK
                if label.startswith("tpot"):
                    if tpot_factor is None:
                        continue
                    bound *= tpot_factor
                if speedup > bound:
                    low = _paired_ci_low(arm, label)
                    noise = low is not None and low <= bound
                    yield Finding("arms.speedup-exceeds-acceptance", "warning" if noise else "error", record.id,
                                  f"arms.{arm.name}.results",
                                  f"{label} speedup {speedup:.3g}x vs {base.name} is above the mean acceptance "
                                  f"length {length:g} x {bound / length:.3g} slack: no speculative step emits "
                                  "more tokens than it accepts"
                                  + (f" (within the run's own noise: its paired rounds' 95 % CI reaches {low:.3g}x)"
                                     if noise else ""))


def acceptance_length(acc: Acceptance, k: float | None) -> float | None:
    """The arm's mean acceptance length (bonus included), from what the record states; None when unknown."""
    if acc.mean_length is not None:
        return float(acc.mean_length.value)
    if acc.mean_length_max is not None:
        return float(acc.mean_length_max.value)
    if acc.per_position:
        return 1.0 + sum(_fraction(q) for q in acc.per_position)
    if acc.rate is not None and k is not None:
        return 1.0 + k * _fraction(acc.rate)
    return None


def speedups(arm: Arm, base: Arm) -> Iterator[tuple[str, float]]:
    """(label, speedup) per throughput metric (arm / base) and TPOT (base / arm) both arms report, at each
    central stat both give (value, mean, median, p50; tails are not bounded this way); when they share none (an
    arm's min/max range against the baseline's one value), the smallest speedup their figures allow. TPOT is
    left out when either arm has a TPOT figure of 0: the client saw a step's tokens arrive together, so its
    TPOT is not a step time (the llama.cpp demo's short runs)."""
    mine, theirs = _by_metric(arm), _by_metric(base)
    if 0.0 in mine.get("tpot", {}).values() or 0.0 in theirs.get("tpot", {}).values():
        mine.pop("tpot", None)
    for metric in sorted(mine.keys() & theirs.keys()):
        higher = METRICS[metric].higher_is_better
        a = {stat: v for stat, v in mine[metric].items() if v > 0}
        b = {stat: v for stat, v in theirs[metric].items() if v > 0}
        shared = sorted(a.keys() & b.keys() & set(CENTRAL_STATS))
        for stat in shared:
            yield f"{metric} ({stat})", (a[stat] / b[stat] if higher else b[stat] / a[stat])
        a_mid = [v for stat, v in a.items() if stat in _RANGE]
        b_mid = [v for stat, v in b.items() if stat in _RANGE]
        if not shared and a_mid and b_mid:
            bound = min(a_mid) / max(b_mid) if higher else min(b_mid) / max(a_mid)
            yield f"{metric} (at least, from {', '.join(sorted(a))} vs {', '.join(sorted(b))})", bound



_RANGE = (*CENTRAL_STATS, "min", "max")


def _by_metric(arm: Arm) -> dict[str, dict[str, float]]:
    """Throughput-like and TPOT results of an arm: metric → stat → value in the canonical unit."""
    out: dict[str, dict[str, float]] = {}
    for r in arm.results:
        if METRICS[r.metric].throughput_like or r.metric == "tpot":
            out.setdefault(r.metric, {})[r.stat] = to_canonical(float(r.value), r.unit)[0]
    return out


def _tpot_burst_factor(record: Benchmark, arm: Arm, k: float | None) -> float | None:
    """How far a TPOT ratio may exceed the acceptance length because TPOT leaves out the first chunk, which can
    carry up to k + 1 tokens: ``(n − 1) / (n − 1 − k)`` for n output tokens (→ 1 for long outputs). None when
    n or k is unknown or too small for a bound (the TPOT ratio is then not checked)."""
    n = condition_value(effective_workload(record, arm).output_tokens)
    if k is None or not isinstance(n, int | float) or isinstance(n, bool) or n - 1 - k <= 0:
        return None
    return (n - 1) / (n - 1 - k)


def _paired_ci_low(arm: Arm, label: str) -> float | None:
    """The low end of the 95 % CI the arm's paired rounds give for the metric ``label`` names; None without."""
    metric = label.split(" ", 1)[0]
    for paired in arm.paired_speedups:
        if paired.metric == metric and paired.ci95 is not None:
            return min(paired.ci95)
    return None


def _same_load(record: Benchmark, arm: Arm, base: Arm) -> bool:
    mine, theirs = effective_workload(record, arm), effective_workload(record, base)
    return all(condition_value(getattr(mine, name)) == condition_value(getattr(theirs, name))
               for name in ("concurrency", "batch_size", "request_rate"))


def _fraction(q: Quantity) -> float:
    factor = conversion(q.unit, "fraction")
    return float(q.value) * (factor if factor is not None else 1.0)
