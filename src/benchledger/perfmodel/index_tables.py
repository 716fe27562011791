"""The physics model's tables in the DuckDB index: ``t_efficiency`` (each result against its physical ceiling).

Imported by ``benchledger.ledger.index`` when present; registering here keeps the index free of model code.
One row per checkable result (decode/output throughput, per-stream throughput, TPOT) of every arm whose ceiling
can be computed: the measured value, the ceiling in the metric's unit, the efficiency (100 % = the physical
limit), which side limits (memory or compute) and how the ceiling was computed (``basis``). Reference lookups
are shared across arms (``CeilingInputs``), so the cost per arm is a few multiplications.
"""

from __future__ import annotations

from collections.abc import Iterator

from benchledger.ledger.index import EXTRA_TABLES, Columns
from benchledger.ledger.rows import Row
from benchledger.ledger.store import Ledger
from benchledger.perfmodel.ceiling import CHECKED_METRICS, CeilingInputs, arm_ceiling, result_efficiency
from benchledger.schema import Benchmark

BASIS = "roofline ceiling, η = 1 (benchledger.perfmodel.ceiling)"

EFFICIENCY_COLUMNS: Columns = {
    "record_id": "VARCHAR", "arm": "VARCHAR", "metric": "VARCHAR", "stat": "VARCHAR", "value": "DOUBLE",
    "unit": "VARCHAR", "ceiling": "DOUBLE", "ceiling_unit": "VARCHAR", "efficiency_pct": "DOUBLE",
    "limiting": "VARCHAR", "basis": "VARCHAR",
}


def efficiency_rows(ledger: Ledger) -> Iterator[Row]:
    """Rows of ``t_efficiency`` (see the module docstring)."""
    inputs = CeilingInputs(ledger)
    for record in ledger.typed("benchmark", Benchmark):
        for arm in record.arms:
            if not any(r.metric in CHECKED_METRICS for r in arm.results):
                continue
            ceiling = arm_ceiling(ledger, record, arm, inputs)
            if isinstance(ceiling, str):
                continue
            basis = "; ".join((BASIS, *ceiling.notes))
            for result in arm.results:
                found = result_efficiency(ceiling, result)
                if found is None:
                    continue
                pct, bound = found
                yield {
                    "record_id": record.id, "arm": arm.name, "metric": result.metric, "stat": result.stat,
                    "value": float(result.value), "unit": result.unit, "ceiling": round(bound, 6),
                    "ceiling_unit": "ms" if result.metric == "tpot" else "tok/s",
                    "efficiency_pct": round(pct, 3), "limiting": ceiling.limiting, "basis": basis,
                }


EXTRA_TABLES["t_efficiency"] = (EFFICIENCY_COLUMNS, efficiency_rows)

__all__ = ["EFFICIENCY_COLUMNS", "efficiency_rows"]
