"""identity.id-not-filename / identity.wrong-folder: the id is the file name, the folder is the kind's folder
(``ledger/io.py identity_problems``; parsing does not check these, so they are reported here)."""

from __future__ import annotations

from collections.abc import Iterator

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.ledger.io import identity_problems

SCOPE = "record"  # findings of a record depend only on it and the non-benchmark records (checks/__init__)


def check(ctx: AuditContext) -> Iterator[Finding]:
    for record in ctx.records:
        path = ctx.ledger.paths.get(record.id)
        if path is None:
            continue
        for problem in identity_problems(path, record):
            yield Finding(problem.code, "error", record.id, problem.field, str(problem))
