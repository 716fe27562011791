"""secrets.suspected: no record (fields or body) and no text file of a run folder (``runs/``: raw requests,
engine logs, environment) carries something shaped like a credential — API keys (``sk-…``), Hugging Face /
GitHub tokens, AWS access keys, bearer tokens. Imported text comes from strangers; engines log their argv."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding

PATTERNS: dict[str, tuple[tuple[str, ...], re.Pattern[str]]] = {
    # label: (literal prefixes that must occur for the pattern to match — a cheap prefilter, the pattern)
    "OpenAI-style API key": (("sk-",), re.compile(r"\bsk-[A-Za-z0-9_-]{20,}")),
    "Hugging Face token": (("hf_",), re.compile(r"\bhf_[A-Za-z0-9]{30,}")),
    "GitHub token": (("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}")),
    "AWS access key id": (("AKIA",), re.compile(r"\bAKIA[0-9A-Z]{16}\b")),
    "bearer token": (("Bearer",), re.compile(r"\bBearer\s+[A-Za-z0-9._~+/-]{20,}")),
}


_ANY_PREFIX = re.compile("|".join(re.escape(p) for prefixes, _ in PATTERNS.values() for p in prefixes))
"""One pass over a text for every pattern's prefixes (most texts have none, and are then done)."""

RUN_FILE_MAX_BYTES = 64 << 20
"""Run files larger than this are read only this far (raw request logs can be large)."""


def _suspect(text: str) -> tuple[str, str] | None:
    if not _ANY_PREFIX.search(text):
        return None
    for label, (prefixes, pattern) in PATTERNS.items():
        if not any(prefix in text for prefix in prefixes):
            continue
        match = pattern.search(text)
        if match:
            return label, match.group(0)[:8] + "…"
    return None


def _run_files(root: Path) -> Iterator[Path]:
    runs = root / "runs"
    if runs.is_dir():
        yield from (p for p in sorted(runs.rglob("*")) if p.is_file() and not p.is_symlink())


SCOPE = "record"  # a record's findings depend on it alone; run files are re-read when runs/ changes


def check(ctx: AuditContext) -> Iterator[Finding]:
    for record in ctx.ledger:
        found = _suspect(record.model_dump_json())
        if found:
            yield Finding("secrets.suspected", "error", record.id, "",
                          f"text shaped like a {found[0]} ({found[1]}); remove it or mask it as ***")
    root = ctx.ledger.root
    for path in _run_files(root):
        with path.open("rb") as handle:
            text = handle.read(RUN_FILE_MAX_BYTES).decode("utf-8", errors="replace")
        found = _suspect(text)
        if found:
            rel = path.relative_to(root).as_posix()
            yield Finding("secrets.suspected", "error", rel.split("/")[1], rel,
                          f"run file {rel}: text shaped like a {found[0]} ({found[1]}); remove it or mask it as ***")
