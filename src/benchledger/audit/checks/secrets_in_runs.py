"""secrets.suspected in run folders: no text file under ``runs/`` (raw requests, engine logs, environment)
carries something shaped like a credential (the patterns of ``secrets_in_text.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from benchledger.audit.checks.secrets_in_text import suspect
from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding

SCOPE = "runs"  # the findings depend on the files under runs/ alone (checks/__init__)

RUN_FILE_MAX_BYTES = 64 << 20
"""Run files larger than this are read only this far (raw request logs can be large)."""


def _run_files(root: Path) -> Iterator[Path]:
    runs = root / "runs"
    if runs.is_dir():
        yield from (p for p in sorted(runs.rglob("*")) if p.is_file() and not p.is_symlink())


def check(ctx: AuditContext) -> Iterator[Finding]:
    root = ctx.ledger.root
    for path in _run_files(root):
        with path.open("rb") as handle:
            text = handle.read(RUN_FILE_MAX_BYTES).decode("utf-8", errors="replace")
        found = suspect(text)
        if found:
            rel = path.relative_to(root).as_posix()
            yield Finding("secrets.suspected", "error", rel.split("/")[1], rel,
                          f"run file {rel}: text shaped like a {found[0]} ({found[1]}); remove it or mask it as ***")


__all__ = ["RUN_FILE_MAX_BYTES", "check"]
