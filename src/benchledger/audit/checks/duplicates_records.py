"""duplicates.same-measurement: two benchmark records (or two arms) carry the same measurement —
same model, hardware, engine, conditions and result values."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

import orjson

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.schema import Arm

SCOPE = "split"
"""Facts per record (a fingerprint per arm), compared across the ledger (``checks/__init__``)."""


def check(ctx: AuditContext) -> Iterator[Finding]:
    yield from from_facts(facts(ctx), {})


ARM_CONDITIONS = ("subject", "workload", "speculative")
"""The parts of an arm that override the record's conditions."""


def facts(ctx: AuditContext) -> dict[str, Any]:
    """Per benchmark id: [arm name, sha256 of its fingerprint] for each arm with results.

    The conditions are read from the record's JSON as the context made it once for every check
    (``record_json``): dumping each part by its own model costs more, and in a command that updates the index
    for one changed file, each part's model would first build its serializer (``defer_build``, ~17 ms;
    benchmarks/ledger_scale.py)."""
    out: dict[str, Any] = {}
    for record in ctx.benchmarks:
        data = json.loads(ctx.record_json[record.id])
        subject = {key: value for key, value in data["subject"].items() if key != "host"}
        shared = _json(subject) + "\n" + _json(data["workload"])
        out[record.id] = [[arm.name, hashlib.sha256(_fingerprint(shared, arm, dumped).encode("utf-8")).hexdigest()]
                          for arm, dumped in zip(record.arms, data["arms"], strict=True) if arm.results]
    return out


def _json(value: Any) -> str:
    """One line of JSON (JSON text has no raw newline: the parts of a fingerprint cannot run into each other)."""
    return orjson.dumps(value).decode("utf-8")


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


def _fingerprint(shared: str, arm: Arm, dumped: dict[str, Any]) -> str:
    """Conditions (record level + the arm's overrides) and results; names, notes and quotes left out.

    ``shared`` is the record's subject (its host left out) and workload as JSON, one line each; ``dumped``
    the arm as the record's JSON holds it.
    """
    own = [_json(dumped[part]) if dumped.get(part) is not None else "" for part in ARM_CONDITIONS]
    results = sorted((r.metric, r.stat, float(r.value), r.unit) for r in arm.results)
    return "\n".join([shared, *own, json.dumps(results)])
