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
        data = record.model_dump(mode="json", include=_CONDITIONS)
        out[record.id] = [[arm.name, hashlib.sha256(_fingerprint(data, arm, i).encode("utf-8")).hexdigest()]
                          for i, arm in enumerate(record.arms) if arm.results]
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


_CONDITIONS: Any = {"subject": True, "workload": True, "arms": {"__all__": {"subject", "workload", "speculative"}}}
"""The parts of a benchmark its fingerprints read, as ``model_dump(include=...)`` takes them."""


def _fingerprint(record: dict[str, Any], arm: Arm, index: int) -> str:
    """Conditions (record level + the arm's overrides) and results; names, notes and quotes left out.

    ``record`` is the benchmark's conditions as JSON data (``_CONDITIONS``); ``index`` the arm's place in it.
    """
    own = record["arms"][index]
    parts = [
        {k: v for k, v in record["subject"].items() if k != "host"},
        record["workload"],
        own.get("subject") or "",
        own.get("workload") or "",
        own.get("speculative") or "",
    ]
    results = sorted((r.metric, r.stat, float(r.value), r.unit) for r in arm.results)
    return json.dumps([parts, results])
