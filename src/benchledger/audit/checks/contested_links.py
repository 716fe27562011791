"""contested.unlinked / contested.not-reciprocal: a contested record names what it disagrees with, and the
disagreement is visible from both sides (both values kept, neither chosen)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding

SCOPE = "split"
"""Facts per record (status and what it contests), compared across the ledger (``checks/__init__``)."""


def check(ctx: AuditContext) -> Iterator[Finding]:
    yield from from_facts(facts(ctx), {})


def facts(ctx: AuditContext) -> dict[str, Any]:
    """Per benchmark id: its ``status`` and the ids it ``contests``."""
    return {b.id: {"status": b.status, "contests": list(b.contests)} for b in ctx.benchmarks}


def from_facts(facts_by_id: dict[str, Any], kinds: dict[str, str]) -> Iterator[Finding]:
    for record_id in sorted(facts_by_id):
        record = facts_by_id[record_id]
        if record["status"] == "contested" and not record["contests"]:
            yield Finding("contested.unlinked", "warning", record_id, "contests",
                          "status is contested but no contesting record is named")
        for other_id in record["contests"]:
            other = facts_by_id.get(other_id)
            if other is not None and record_id not in other["contests"]:
                yield Finding("contested.not-reciprocal", "warning", record_id, "contests",
                              f"{other_id!r} does not list {record_id!r} in its contests")
            if record["status"] != "contested":
                yield Finding("contested.status", "warning", record_id, "status",
                              "a record that contests another should have status: contested")


__all__ = ["check"]
