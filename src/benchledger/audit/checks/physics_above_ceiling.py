"""physics.above-ceiling: no decode throughput (or TPOT) may beat the physical ceiling of its hardware.

Each ``output_throughput``, ``per_stream_throughput`` and ``tpot`` result is compared with the roofline ceiling
of the arm's hardware × count × weight format × model at its input length (``perfmodel.ceiling``). Above 100 %
is an error (waivable with a reason in ``waivers.yaml``). When the ceiling cannot be computed, one
``physics.ceiling-unknown`` info finding per arm says why.
"""

from __future__ import annotations

from collections.abc import Iterator

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.perfmodel.ceiling import CHECKED_METRICS, CeilingInputs, arm_ceiling, result_efficiency


def check(ctx: AuditContext) -> Iterator[Finding]:
    inputs = CeilingInputs(ctx.ledger)
    for record in ctx.benchmarks:
        for arm in record.arms:
            checked = [i for i, r in enumerate(arm.results) if r.metric in CHECKED_METRICS]
            if not checked:
                continue
            ceiling = arm_ceiling(ctx.ledger, record, arm, inputs)
            if isinstance(ceiling, str):
                yield Finding("physics.ceiling-unknown", "info", record.id, f"arms.{arm.name}",
                              f"no physical ceiling: {ceiling}")
                continue
            for index in checked:
                result = arm.results[index]
                row = result_efficiency(ceiling, result)
                if row is None or row[0] <= 100.0:
                    continue
                pct, bound = row
                metric, stat = result.metric, result.stat
                unit = "ms" if metric == "tpot" else "tok/s"
                relation = "below the minimum" if metric == "tpot" else "above the ceiling"
                notes = f" ({'; '.join(ceiling.notes)})" if ceiling.notes else ""
                yield Finding(
                    "physics.above-ceiling", "error", record.id, f"arms.{arm.name}.results.{index}",
                    f"{metric} {stat} {result.value:g} {result.unit} is {relation} of {bound:.4g} {unit} "
                    f"({pct:.0f} % of the physical limit, T={ceiling.query_tokens}){notes}",
                )


__all__ = ["check"]
