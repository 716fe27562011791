"""duplicates.same-measurement: two benchmark records (or two arms) carry the same measurement —
same model, hardware, engine, conditions and result values."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.schema import Arm

SCOPE = "split"
"""Facts per record (a fingerprint per arm), compared across the ledger (``checks/__init__``)."""


def check(ctx: AuditContext) -> Iterator[Finding]:
    yield from from_facts(facts(ctx), {})


def facts(ctx: AuditContext) -> dict[str, Any]:
    """Per benchmark id: [arm name, sha256 of its fingerprint] for each arm with results."""
    out: dict[str, Any] = {}
    for record in ctx.benchmarks:
        shared = record.subject.model_dump_json(exclude={"host"}) + "\n" + record.workload.model_dump_json()
        out[record.id] = [[arm.name, hashlib.sha256(_fingerprint(shared, arm).encode("utf-8")).hexdigest()]
                          for arm in record.arms if arm.results]
    return out


def from_facts(facts_by_id: dict[str, Any], kinds: dict[str, str]) -> Iterator[Finding]:
    """The findings: the first arm (by record id, then arm order) with a fingerprint is the original."""
    seen: dict[str, tuple[str, str]] = {}
    for record_id in sorted(facts_by_id):
        for arm, key in facts_by_id[record_id]:
            if key in seen:
                other_record, other_arm = seen[key]
                where = "this record" if other_record == record_id else f"record {other_record!r}"
                yield Finding("duplicates.same-measurement", "error", record_id, f"arms.{arm}",
                              f"same conditions and results as arm {other_arm!r} of {where}")
            else:
                seen[key] = (record_id, arm)


def _fingerprint(shared: str, arm: Arm) -> str:
    """Conditions (record level + the arm's overrides) and results; names, notes and quotes left out.

    ``shared`` is the record's subject (its host left out) and workload as JSON, one line each (JSON text has
    no raw newline: the parts cannot run into each other).
    """
    own = [part.model_dump_json() if part is not None else "" for part in (arm.subject, arm.workload, arm.speculative)]
    results = sorted((r.metric, r.stat, float(r.value), r.unit) for r in arm.results)
    return "\n".join([shared, *own, json.dumps(results)])
