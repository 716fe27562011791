"""provenance.number-not-in-quote: a quoted number is written in its quote, in the record's unit (separators,
K/M suffixes and unit conversions of the same dimension normalised; never a free power of ten);
provenance.value-not-in-quote: a quoted text condition (e.g. an engine version) appears in its quote."""

from __future__ import annotations

from collections.abc import Iterator

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.audit.numbers import value_in_text
from benchledger.schema import Known, Quantity

TEXT_FIELDS = {"engine_version", "image", "engine_flags", "config"}
"""Text conditions whose value must be written in the quote (ids such as format ids are mapped, not quoted)."""


SCOPE = "record"  # findings of a record depend only on it and the non-benchmark records (checks/__init__)


def check(ctx: AuditContext) -> Iterator[Finding]:
    for ev in ctx.evidence():
        item = ev.item
        if not isinstance(item, Quantity | Known) or not item.quote:
            continue
        value = item.value
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            record_unit = item.unit if isinstance(item, Quantity) else None
            if not value_in_text(value, item.quote, record_unit):
                unit = f" {record_unit}" if record_unit else ""
                yield Finding("provenance.number-not-in-quote", "error", ev.record.id, f"{ev.field}.value",
                              f"{value}{unit} is not written in its quote {item.quote!r}")
        elif ev.field.rsplit(".", 1)[-1] in TEXT_FIELDS and value.lower() not in item.quote.lower():
            yield Finding("provenance.value-not-in-quote", "warning", ev.record.id, f"{ev.field}.value",
                          f"{value!r} does not appear in its quote {item.quote!r}")
