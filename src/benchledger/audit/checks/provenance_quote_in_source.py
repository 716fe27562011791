"""provenance.quote-not-in-source: every quote appears verbatim (whitespace normalised) in its source's excerpt."""

from __future__ import annotations

from collections.abc import Iterator

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.audit.numbers import normalise_space

SCOPE = "record"  # findings of a record depend only on it and the non-benchmark records (checks/__init__)


def check(ctx: AuditContext) -> Iterator[Finding]:
    for ev in ctx.evidence():
        quote = ev.item.quote
        if not quote:
            continue
        source_id = ev.source_id
        if source_id is None:
            yield Finding("provenance.quote-without-source", "error", ev.record.id, ev.field,
                          "a quote needs a source (set 'source' or list one in the record's sources)")
            continue
        excerpt = ctx.excerpts.get(source_id)
        if excerpt is None:
            continue  # references.dangling reports the missing source
        if normalise_space(quote) not in excerpt:
            yield Finding("provenance.quote-not-in-source", "error", ev.record.id, f"{ev.field}.quote",
                          f"quote not found in the stored excerpt of {source_id!r}: {_short(quote)}")


def _short(text: str, limit: int = 120) -> str:
    text = normalise_space(text)
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")
