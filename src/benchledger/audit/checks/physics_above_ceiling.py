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

SCOPE = "record"  # findings of a record depend only on it and the non-benchmark records (checks/__init__)


def check(ctx: AuditContext) -> Iterator[Finding]:
    for record in ctx.benchmarks:
        for arm in ctx.efficiency(record):
            if not arm.checkable:
                continue
            if arm.ceiling is None:
                yield Finding("physics.ceiling-unknown", "info", record.id, f"arms.{arm.arm}",
                              f"no physical ceiling: {arm.reason}")
                continue
            for row in arm.results:
                if row.percent_of_bound <= 100.0:
                    continue
                relation = "below the minimum" if row.metric == "tpot" else "above the ceiling"
                notes = f" ({'; '.join(arm.ceiling.notes)})" if arm.ceiling.notes else ""
                yield Finding(
                    "physics.above-ceiling", "error", record.id, f"arms.{arm.arm}.results.{row.index}",
                    f"{row.metric} {row.stat} {row.value:g} {row.unit} is {relation} ({row.bound}) of {row.ceiling:.4g} "
                    f"{row.ceiling_unit} ({row.percent_of_bound:.0f} % of the physical limit, "
                    f"T={arm.ceiling.query_tokens}){notes}",
                )


__all__ = ["check"]
