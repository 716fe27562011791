"""schema.invalid / files.* / identity.duplicate-id: files that do not parse or validate (``schema.invalid``),
files that cannot be read as records (``files.too-large``, ``files.encoding``: not UTF-8, BOM, CRLF;
``files.in-subfolder``), and ids used twice. Each finding names ``path:line``."""

from __future__ import annotations

from collections.abc import Iterator

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding

SCOPE = "files"  # reads only the files that failed to load and the ids used twice (checks/__init__)


def check(ctx: AuditContext) -> Iterator[Finding]:
    for error in ctx.ledger.errors:
        yield Finding(error.code, "error", error.path.stem, error.field, str(error))
    for record_id, first, second in ctx.ledger.duplicate_ids:
        yield Finding("identity.duplicate-id", "error", record_id, "id", f"id used by both {first} and {second}")
