"""provenance.quoted-change-mismatch: a percentage the source states agrees, within rounding, with the one
derived from the arm and its baseline (both inputs and the quoted percent taken at their printed precision)."""

from __future__ import annotations

from collections.abc import Iterator

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.audit.numbers import percent_change_interval, rounding_interval
from benchledger.schema import Arm, Benchmark, Result

SCOPE = "record"  # findings of a record depend only on it and the non-benchmark records (checks/__init__)


def check(ctx: AuditContext) -> Iterator[Finding]:
    for record in ctx.benchmarks:
        arms = {a.name: a for a in record.arms}
        for arm in record.arms:
            for i, change in enumerate(arm.quoted_changes):
                field = f"arms.{arm.name}.quoted_changes.{i}"
                base = arms.get(arm.baseline) if arm.baseline else None
                mine = _result(arm, change.metric, change.stat)
                theirs = _result(base, change.metric, change.stat) if base else None
                if mine is None or theirs is None:
                    yield Finding("provenance.quoted-change-unverifiable", "warning", record.id, field,
                                  f"no {change.metric}/{change.stat} result in this arm and its baseline to check against")
                    continue
                if mine.unit != theirs.unit:
                    yield Finding("provenance.quoted-change-unverifiable", "warning", record.id, field,
                                  f"arm and baseline use different units ({mine.unit} vs {theirs.unit})")
                    continue
                lo, hi = percent_change_interval(float(mine.value), float(theirs.value))
                q_lo, q_hi = rounding_interval(float(change.percent.value))
                if q_hi < lo or q_lo > hi:
                    yield Finding("provenance.quoted-change-mismatch", "error", record.id, field,
                                  f"source says {change.percent.value:+}% but {mine.value}/{theirs.value} gives "
                                  f"{lo:+.2f}…{hi:+.2f}% at the printed precision")


def _result(arm: Arm | None, metric: str, stat: str) -> Result | None:
    if arm is None:
        return None
    return next((r for r in arm.results if r.metric == metric and r.stat == stat), None)


__all__ = ["Benchmark", "check"]
