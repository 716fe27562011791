"""references.dangling: every id a record names exists, with the right kind."""

from __future__ import annotations

from collections.abc import Iterator

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.schema import Accelerator, Benchmark, Calibration, Known, Quantity, Record, condition_value


def check(ctx: AuditContext) -> Iterator[Finding]:
    kinds = {r.id: r.kind for r in ctx.ledger}
    for record in ctx.ledger:
        for field, target, kind in _references(record):
            actual = kinds.get(target)
            if actual is None:
                yield Finding("references.dangling", "error", record.id, field, f"no {kind} record {target!r}")
            elif actual != kind:
                yield Finding("references.dangling", "error", record.id, field,
                              f"{target!r} is a {actual} record, expected a {kind}")
    for ev in ctx.evidence():
        if isinstance(ev.item, Quantity | Known) and ev.item.source and ev.item.source not in ev.record.sources:
            yield Finding("references.source-not-listed", "warning", ev.record.id, f"{ev.field}.source",
                          f"source {ev.item.source!r} is cited but not listed in the record's sources")


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
