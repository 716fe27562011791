"""The physics columns of the site (ceiling, efficiency, assumptions), from ``benchledger.perfmodel`` if present.

Per arm: the roofline ceiling of its hardware × count × weight format × model at its load
(``perfmodel.ceiling.arm_ceiling``), and the efficiency of its headline throughput/TPOT result against it
(``result_efficiency``). When the physics model is not importable every page shows "—" with a title saying
why; when one arm's ceiling cannot be computed, the reason the model gives is shown. Never a zero or a blank.
"""

from __future__ import annotations

from typing import Any

from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark

UNAVAILABLE = (
    "physics model not available in this build (benchledger.perfmodel is not importable), "
    "so no ceiling or efficiency is shown"
)
NO_CEILING = "the physics model gives no ceiling for this arm (a hardware or model figure it needs is unknown)"
EFFICIENCY_METRICS: tuple[str, ...] = ("output_throughput", "per_stream_throughput", "tpot")
STATS: tuple[str, ...] = ("value", "mean", "median", "p50", "p90", "p95", "p99", "min", "max", "std")

PhysicsRows = dict[str, dict[str, dict[str, Any]]]


def physics_rows(ledger: Ledger) -> tuple[PhysicsRows, str]:
    """``{record_id: {arm: row}}`` and a page note ('' when the physics model is available).

    A row holds ``ceiling_aggregate_tok_s``, ``ceiling_per_stream_tok_s``, ``floor_tpot_ms``, ``step_ms``,
    ``efficiency`` (fraction), ``efficiency_metric``, ``assumptions`` and ``reason`` (why no ceiling).
    """
    try:
        from benchledger.perfmodel.ceiling import arm_ceiling, result_efficiency
    except ImportError:
        return {}, UNAVAILABLE
    grouped: PhysicsRows = {}
    for record in ledger.typed("benchmark", Benchmark):
        for arm in record.arms:
            ceiling = arm_ceiling(ledger, record, arm)
            row: dict[str, Any] = {
                "ceiling_aggregate_tok_s": None, "ceiling_per_stream_tok_s": None, "floor_tpot_ms": None,
                "step_ms": None, "efficiency": None, "efficiency_metric": None, "assumptions": "", "reason": "",
            }
            if isinstance(ceiling, str):
                row["reason"] = ceiling
            else:
                row.update(
                    ceiling_aggregate_tok_s=ceiling.aggregate_tok_s, ceiling_per_stream_tok_s=ceiling.tok_s_per_stream,
                    floor_tpot_ms=ceiling.tpot_ms, step_ms=ceiling.step_ms, assumptions="; ".join(ceiling.notes),
                )
                ranked = sorted(
                    (r for r in arm.results if r.metric in EFFICIENCY_METRICS),
                    key=lambda r: (EFFICIENCY_METRICS.index(r.metric),
                                   STATS.index(r.stat) if r.stat in STATS else len(STATS)),
                )
                for result in ranked:
                    found = result_efficiency(ceiling, result)
                    if found is not None:
                        row["efficiency"] = found[0] / 100.0
                        row["efficiency_metric"] = result.metric + ("" if result.stat == "value" else f" {result.stat}")
                        break
            grouped.setdefault(record.id, {})[arm.name] = row
    return grouped, ""


def best_efficiency(rows: dict[str, dict[str, Any]]) -> float | None:
    """The highest efficiency over a record's arms (None when no arm has one)."""
    values = [float(r["efficiency"]) for r in rows.values() if r.get("efficiency") is not None]
    return max(values) if values else None


__all__ = ["NO_CEILING", "UNAVAILABLE", "PhysicsRows", "best_efficiency", "physics_rows"]
