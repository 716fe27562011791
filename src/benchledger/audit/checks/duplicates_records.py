"""duplicates.same-measurement: two benchmark records (or two arms) carry the same measurement —
same model, hardware, engine, conditions and result values."""

from __future__ import annotations

import json
from collections.abc import Iterator

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.schema import Arm, Benchmark


def check(ctx: AuditContext) -> Iterator[Finding]:
    seen: dict[str, tuple[str, str]] = {}
    for record in ctx.benchmarks:
        for arm in record.arms:
            if not arm.results:
                continue
            key = _fingerprint(record, arm)
            if key in seen:
                other_record, other_arm = seen[key]
                where = "this record" if other_record == record.id else f"record {other_record!r}"
                yield Finding("duplicates.same-measurement", "error", record.id, f"arms.{arm.name}",
                              f"same conditions and results as arm {other_arm!r} of {where}")
            else:
                seen[key] = (record.id, arm.name)


def _fingerprint(record: Benchmark, arm: Arm) -> str:
    """Conditions (record level + the arm's overrides) and results; names, notes and quotes left out."""
    parts = [
        record.subject.model_dump_json(exclude={"host"}),
        record.workload.model_dump_json(),
        arm.subject.model_dump_json() if arm.subject else "",
        arm.workload.model_dump_json() if arm.workload else "",
        arm.speculative.model_dump_json() if arm.speculative else "",
    ]
    results = sorted((r.metric, r.stat, float(r.value), r.unit) for r in arm.results)
    return json.dumps([parts, results])
