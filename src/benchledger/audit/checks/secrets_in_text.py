"""secrets.suspected: no record (fields or body) carries something shaped like a credential — API keys
(``sk-…``), Hugging Face / GitHub tokens, AWS access keys, bearer tokens. Imported text comes from strangers."""

from __future__ import annotations

import re
from collections.abc import Iterator

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


def check(ctx: AuditContext) -> Iterator[Finding]:
    for record in ctx.ledger:
        text = record.model_dump_json()
        for label, (prefixes, pattern) in PATTERNS.items():
            if not any(prefix in text for prefix in prefixes):
                continue
            match = pattern.search(text)
            if match:
                shown = match.group(0)[:8] + "…"
                yield Finding("secrets.suspected", "error", record.id, "",
                              f"text shaped like a {label} ({shown}); remove it or mask it as ***")
