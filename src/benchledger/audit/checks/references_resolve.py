"""references.dangling: every id a record names exists, with the right kind."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.schema import Accelerator, Benchmark, Calibration, Known, Quantity, Record, condition_value

SCOPE = "split"
"""Facts per record (the ids it names), resolved against the kind of every record id (``checks/__init__``)."""


def check(ctx: AuditContext) -> Iterator[Finding]:
    yield from from_facts(facts(ctx), {r.id: r.kind for r in ctx.ledger})


def facts(ctx: AuditContext) -> dict[str, Any]:
    """Per record id: ``refs`` [field, target id, kind] it names and ``unlisted`` [field, source] it cites."""
    out: dict[str, Any] = {r.id: {"refs": [list(ref) for ref in _references(r)], "unlisted": []} for r in ctx.records}
    for ev in ctx.evidence():
        if isinstance(ev.item, Quantity | Known) and ev.item.source and ev.item.source not in ev.record.sources:
            out[ev.record.id]["unlisted"].append([ev.field, ev.item.source])
    return out


def from_facts(facts_by_id: dict[str, Any], kinds: dict[str, str]) -> Iterator[Finding]:
    """The findings, given every record's facts and the kind of every record id."""
    for record_id, found in facts_by_id.items():
        for field, target, kind in found["refs"]:
            actual = kinds.get(target)
            if actual is None:
                yield Finding("references.dangling", "error", record_id, field, f"no {kind} record {target!r}")
            elif actual != kind:
                yield Finding("references.dangling", "error", record_id, field,
                              f"{target!r} is a {actual} record, expected a {kind}")
        for field, source in found["unlisted"]:
            yield Finding("references.source-not-listed", "warning", record_id, f"{field}.source",
                          f"source {source!r} is cited but not listed in the record's sources")


def _references(record: Record) -> Iterator[tuple[str, str, str]]:
    for i, source in enumerate(record.sources):
        yield f"sources.{i}", source, "source"
    if isinstance(record, Benchmark):
        yield from _benchmark_references(record)
    elif isinstance(record, Accelerator):
        for i, link in enumerate(record.interconnects):
            yield f"interconnects.{i}", link, "interconnect"
    elif isinstance(record, Calibration):
        yield "accelerator", record.accelerator, "accelerator"
        yield "engine", record.engine, "engine"
        for i, ref in enumerate(record.fitted_from):
            yield f"fitted_from.{i}", ref.split("#", 1)[0], "benchmark"


def _benchmark_references(record: Benchmark) -> Iterator[tuple[str, str, str]]:
    subject = record.subject
    yield "subject.model", subject.model, "model"
    yield "subject.engine", subject.engine, "engine"
    yield "subject.accelerator", subject.accelerator, "accelerator"
    for i, alt in enumerate(subject.accelerator_alternates):
        yield f"subject.accelerator_alternates.{i}", alt, "accelerator"
    for i, link in enumerate(subject.interconnects):
        yield f"subject.interconnects.{i}", link, "interconnect"
    for i, other in enumerate(record.contests):
        yield f"contests.{i}", other, "benchmark"
    overrides = [("subject", subject)] + [(f"arms.{a.name}.subject", a.subject) for a in record.arms if a.subject]
    for prefix, part in overrides:
        for name in ("weights", "kv_cache"):
            value = condition_value(getattr(part, name))
            if isinstance(value, str):
                yield f"{prefix}.{name}", value, "format"
