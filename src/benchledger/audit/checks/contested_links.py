"""contested.unlinked / contested.not-reciprocal: a contested record names what it disagrees with, and the
disagreement is visible from both sides (both values kept, neither chosen)."""

from __future__ import annotations

from collections.abc import Iterator

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding


def check(ctx: AuditContext) -> Iterator[Finding]:
    by_id = {b.id: b for b in ctx.benchmarks}
    for record in ctx.benchmarks:
        if record.status == "contested" and not record.contests:
            yield Finding("contested.unlinked", "warning", record.id, "contests",
                          "status is contested but no contesting record is named")
        for other_id in record.contests:
            other = by_id.get(other_id)
            if other is not None and record.id not in other.contests:
                yield Finding("contested.not-reciprocal", "warning", record.id, "contests",
                              f"{other_id!r} does not list {record.id!r} in its contests")
            if record.status != "contested":
                yield Finding("contested.status", "warning", record.id, "status",
                              "a record that contests another should have status: contested")
