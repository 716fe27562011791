"""provenance.source-hash-mismatch: a source's sha256 is the hash of its stored excerpt (the file body)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.schema import Source

SCOPE = "record"  # findings of a record depend only on it and the non-benchmark records (checks/__init__)


def check(ctx: AuditContext) -> Iterator[Finding]:
    for source in ctx.typed("source", Source):
        actual = hashlib.sha256(source.body.encode("utf-8")).hexdigest()
        if actual != source.sha256:
            yield Finding("provenance.source-hash-mismatch", "error", source.id, "sha256",
                          f"stored excerpt hashes to {actual}, the record says {source.sha256}")
        if not source.body.strip():
            yield Finding("provenance.empty-excerpt", "error", source.id, "body",
                          "a source must store the excerpt its quotes are checked against")
