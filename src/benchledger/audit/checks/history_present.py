"""history.missing (warning): every record keeps a short history — at least the entry that created it."""

from __future__ import annotations

from collections.abc import Iterator

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding

SCOPE = "record"  # findings of a record depend only on it and the non-benchmark records (checks/__init__)


def check(ctx: AuditContext) -> Iterator[Finding]:
    for record in ctx.records:
        if not record.history:
            yield Finding("history.missing", "warning", record.id, "history",
                          "no history entry: add one (date, change, why, numbers_changed)")
        elif sorted(h.date for h in record.history) != [h.date for h in record.history]:
            yield Finding("history.unordered", "warning", record.id, "history", "entries are not in date order")
