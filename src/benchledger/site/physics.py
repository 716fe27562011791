"""The physics columns of the site (ceiling, efficiency, assumptions), from ``perfmodel.efficiency``.

Per arm: the roofline ceiling of its hardware × count × weight format × model at its load and the
efficiency of its headline throughput/TPOT result against it, both as ``record_efficiency`` computes them
for the audit and the index (the site never recomputes one). When one arm's ceiling cannot be computed,
the reason the model gives is shown. Never a zero or a blank.
"""

from __future__ import annotations

from typing import Any

from benchledger.ledger.store import Ledger
from benchledger.perfmodel.bounds import bound_name
from benchledger.perfmodel.ceiling import CeilingInputs
from benchledger.perfmodel.efficiency import ArmEfficiency, record_efficiency
from benchledger.schema import Benchmark

NO_CEILING = "the physics model gives no ceiling for this arm (a hardware or model figure it needs is unknown)"
EFFICIENCY_METRICS: tuple[str, ...] = ("output_throughput", "per_stream_throughput", "tpot")
STATS: tuple[str, ...] = ("value", "mean", "median", "p50", "p90", "p95", "p99", "min", "max", "std")

PhysicsRows = dict[str, dict[str, dict[str, Any]]]


def physics_rows(ledger: Ledger) -> tuple[PhysicsRows, str]:
    """``{record_id: {arm: row}}`` and a page note (always '': the physics model is part of benchledger).

    A row holds ``ceiling_aggregate_tok_s``, ``ceiling_per_stream_tok_s``, ``floor_tpot_ms``, ``step_ms``,
    ``efficiency`` (fraction), ``efficiency_metric``, ``efficiency_note`` (why a bound gives no efficiency, e.g.
    ``n/a (concurrency unknown)``), the bounds' names (``bound_*``), ``assumptions`` and ``reason`` (why no ceiling).
    """
    inputs = CeilingInputs(ledger)
    grouped: PhysicsRows = {}
    for record in ledger.typed("benchmark", Benchmark):
        for arm in record_efficiency(record, inputs):
            grouped.setdefault(record.id, {})[arm.arm] = _row(arm)
    return grouped, ""


def _row(arm: ArmEfficiency) -> dict[str, Any]:
    row: dict[str, Any] = {
        "ceiling_aggregate_tok_s": None, "ceiling_per_stream_tok_s": None, "floor_tpot_ms": None,
        "step_ms": None, "efficiency": None, "efficiency_metric": None, "efficiency_note": "", "assumptions": "",
        "reason": arm.reason, **{f"bound_{m}": bound_name(m, draft_cost=None) for m in EFFICIENCY_METRICS},
    }
    if arm.ceiling is None:
        return row
    ceiling = arm.ceiling
    row.update(ceiling_aggregate_tok_s=ceiling.aggregate_tok_s, ceiling_per_stream_tok_s=ceiling.tok_s_per_stream,
               floor_tpot_ms=ceiling.tpot_ms, step_ms=ceiling.step_ms, assumptions="; ".join(ceiling.notes),
               **{f"bound_{m}": ceiling.bound_name(m) for m in EFFICIENCY_METRICS})
    ranked = sorted(arm.results, key=lambda r: (r.efficiency_pct is None, EFFICIENCY_METRICS.index(r.metric),
                                                STATS.index(r.stat) if r.stat in STATS else len(STATS)))
    if ranked:
        headline = ranked[0]
        row["efficiency_metric"] = headline.metric + ("" if headline.stat == "value" else f" {headline.stat}")
        if headline.efficiency_pct is None:
            row["efficiency_note"] = headline.not_applicable
        else:
            row["efficiency"] = headline.efficiency_pct / 100.0
    return row


def best_efficiency(rows: dict[str, dict[str, Any]]) -> float | None:
    """The highest efficiency over a record's arms (None when no arm has one)."""
    values = [float(r["efficiency"]) for r in rows.values() if r.get("efficiency") is not None]
    return max(values) if values else None


__all__ = ["NO_CEILING", "PhysicsRows", "best_efficiency", "physics_rows"]
