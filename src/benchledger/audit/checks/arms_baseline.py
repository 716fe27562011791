"""arms.spec-without-baseline / arms.baseline-not-found: every speculative arm names an existing baseline arm.
arms.baseline-differs (warning): an arm and its baseline differ in more than speculation.
arms.unknown-spec-method (warning): a method outside the known vocabulary."""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.schema import SPEC_METHODS, Arm, Benchmark, Known, Unknown

SCOPE = "record"  # findings of a record depend only on it and the non-benchmark records (checks/__init__)


def check(ctx: AuditContext) -> Iterator[Finding]:
    for record in ctx.benchmarks:
        arms = {a.name: a for a in record.arms}
        for arm in record.arms:
            field = f"arms.{arm.name}.baseline"
            if arm.speculative is not None and arm.speculative.method not in SPEC_METHODS:
                yield Finding("arms.unknown-spec-method", "warning", record.id, f"arms.{arm.name}.speculative.method",
                              f"method {arm.speculative.method!r} is not one of {', '.join(SPEC_METHODS)}")
            if arm.baseline is None:
                if arm.speculative is not None:
                    yield Finding("arms.spec-without-baseline", "error", record.id, field,
                                  "a speculative arm needs a baseline arm to be compared against")
                continue
            base = arms.get(arm.baseline)
            if base is None or base is arm:
                yield Finding("arms.baseline-not-found", "error", record.id, field,
                              f"baseline {arm.baseline!r} is not another arm of this record")
                continue
            diffs = _differences(record, arm, base)
            if diffs:
                yield Finding("arms.baseline-differs", "warning", record.id, field,
                              f"arm differs from its baseline in {', '.join(diffs)} besides speculation")


def _differences(record: Benchmark, arm: Arm, base: Arm) -> list[str]:
    """Fields whose effective values differ between the two arms (quotes and notes ignored; only overrides
    can differ, the rest is shared at record level)."""
    out: list[str] = []
    for label in ("subject", "workload"):
        mine, theirs = getattr(arm, label), getattr(base, label)
        shared = getattr(record, label)
        keys = set(mine.model_fields_set if mine else ()) | set(theirs.model_fields_set if theirs else ())
        for key in sorted(keys):
            left = getattr(mine, key, None) if mine else None
            right = getattr(theirs, key, None) if theirs else None
            left = getattr(shared, key) if left is None else left
            right = getattr(shared, key) if right is None else right
            if _plain(left) != _plain(right):
                out.append(f"{label}.{key}")
    return out


def _plain(value: object) -> object:
    """A condition reduced to what it says: the value, or the unknown reason; nested models field by field."""
    if isinstance(value, Known):
        return value.value
    if isinstance(value, Unknown):
        return ("unknown", value.unknown)
    if isinstance(value, BaseModel):
        return {k: _plain(v) for k, v in value.__dict__.items()}
    return value
