"""provenance.run-missing / provenance.run-hash-mismatch: a measured value points to raw run data that exists
and still hashes to the recorded sha256 (``run`` is a file, or a folder holding ``requests.jsonl``)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.ledger.paths import RUN_RAW_FILE
from benchledger.schema import Quantity

SCOPE = "record"  # findings of a record depend only on it and the non-benchmark records (checks/__init__)


def check(ctx: AuditContext) -> Iterator[Finding]:
    cache: dict[Path, str | None] = {}
    for ev in ctx.evidence():
        item = ev.item
        if not isinstance(item, Quantity) or item.provenance != "measured" or not item.run:
            continue
        target = ctx.ledger.root / item.run
        if target.is_dir():
            target = target / RUN_RAW_FILE
        if target not in cache:
            cache[target] = _sha256(target)
        digest = cache[target]
        if digest is None:
            yield Finding("provenance.run-missing", "error", ev.record.id, f"{ev.field}.run",
                          f"run data {item.run!r} not found under {ctx.ledger.root}")
        elif digest != item.sha256:
            yield Finding("provenance.run-hash-mismatch", "error", ev.record.id, f"{ev.field}.sha256",
                          f"{target.name} hashes to {digest}, the record says {item.sha256}")


def _sha256(path: Path) -> str | None:
    if not path.is_file():
        return None
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
