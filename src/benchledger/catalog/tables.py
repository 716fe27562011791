"""The index tables that are not the ledger's own: the physics model's efficiency and the audit's findings.

``t_efficiency`` holds one row per checkable result (decode/output throughput, per-stream throughput, TPOT)
of every arm whose ceiling can be computed, exactly as ``perfmodel.efficiency.record_efficiency`` gives it:
the value, the ceiling in the metric's unit and its name (``bound``), the efficiency (100 % = the physical limit;
NULL with ``efficiency_note`` when the bound only caps the value), which side limits
(memory or compute) and how the ceiling was computed (``basis``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from benchledger.audit.finding import Finding
from benchledger.ledger.index import Columns
from benchledger.ledger.rows import Row
from benchledger.ledger.store import Ledger
from benchledger.perfmodel.ceiling import CeilingInputs
from benchledger.perfmodel.efficiency import ArmEfficiency, record_efficiency
from benchledger.schema import Benchmark

EFFICIENCY_COLUMNS: Columns = {
    "record_id": "VARCHAR", "arm": "VARCHAR", "metric": "VARCHAR", "stat": "VARCHAR", "value": "DOUBLE",
    "unit": "VARCHAR", "ceiling": "DOUBLE", "ceiling_unit": "VARCHAR", "efficiency_pct": "DOUBLE",
    "efficiency_note": "VARCHAR", "bound": "VARCHAR", "limiting": "VARCHAR", "basis": "VARCHAR",
}
FINDING_COLUMNS: Columns = {"code": "VARCHAR", "severity": "VARCHAR", "record": "VARCHAR", "field": "VARCHAR",
                            "message": "VARCHAR", "waived": "BOOLEAN", "waiver_reason": "VARCHAR"}


def benchmark_efficiency(records: Iterable[Benchmark], inputs: CeilingInputs) -> Iterator[Row]:
    """Rows of ``t_efficiency`` for these records (``inputs`` carries the whole ledger's reference data)."""
    for record in records:
        yield from efficiency_table_rows(record_efficiency(record, inputs))


def efficiency_rows(ledger: Ledger) -> Iterator[Row]:
    """Rows of ``t_efficiency`` for every benchmark of the ledger."""
    return benchmark_efficiency(ledger.typed("benchmark", Benchmark), CeilingInputs(ledger))


def efficiency_table_rows(arms: Iterable[ArmEfficiency]) -> Iterator[Row]:
    for arm in arms:
        if arm.ceiling is None or not arm.checkable:
            continue
        for r in arm.results:
            yield {
                "record_id": arm.record_id, "arm": arm.arm, "metric": r.metric, "stat": r.stat, "value": r.value,
                "unit": r.unit, "ceiling": r.ceiling, "ceiling_unit": r.ceiling_unit,
                "efficiency_pct": r.efficiency_pct, "efficiency_note": r.not_applicable or None, "bound": r.bound,
                "limiting": arm.ceiling.limiting, "basis": arm.basis,
            }


def finding_rows(findings: Iterable[Finding]) -> list[Row]:
    return [f.as_row() for f in findings]


__all__ = ["EFFICIENCY_COLUMNS", "FINDING_COLUMNS", "benchmark_efficiency", "efficiency_rows",
           "efficiency_table_rows", "finding_rows"]
