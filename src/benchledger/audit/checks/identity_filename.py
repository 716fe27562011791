"""identity.id-not-filename / identity.wrong-folder: the id is the file name, the folder is the kind's folder."""

from __future__ import annotations

from collections.abc import Iterator

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.schema import KIND_FOLDERS

SCOPE = "record"  # findings of a record depend only on it and the non-benchmark records (checks/__init__)


def check(ctx: AuditContext) -> Iterator[Finding]:
    for record in ctx.ledger:
        path = ctx.ledger.paths.get(record.id)
        if path is None:
            continue
        if path.stem != record.id:
            yield Finding("identity.id-not-filename", "error", record.id, "id",
                          f"id {record.id!r} differs from file name {path.name!r}")
        if path.parent.name != KIND_FOLDERS[record.kind]:
            yield Finding("identity.wrong-folder", "error", record.id, "kind",
                          f"a {record.kind} record belongs in {KIND_FOLDERS[record.kind]}/, found in {path.parent.name}/")
