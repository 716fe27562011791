"""measured.incomplete (warning): a benchmark record of a run that was interrupted before its end
(``complete: false``, written only by ``benchledger bench --record-incomplete``). Its numbers cover part of
the planned work: quote them as such, or rerun."""

from __future__ import annotations

from collections.abc import Iterator

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding

SCOPE = "record"  # findings of a record depend only on it (checks/__init__)


def check(ctx: AuditContext) -> Iterator[Finding]:
    for record in ctx.benchmarks:
        if not record.complete:
            yield Finding("measured.incomplete", "warning", record.id, "complete",
                          "the run was interrupted before its end (complete: false): its numbers cover part of "
                          "the planned requests; rerun, or say so wherever they are quoted")
