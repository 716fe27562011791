"""The audit, run so that its results can be cached per record and re-run only where a change reaches.

Each registered check declares its ``SCOPE`` (``benchledger/audit/checks/__init__.py``). ``run_checks`` gives
the same findings as ``audit.run_audit`` on the same ledger, split into what the cache keeps: per-record
findings of ``record`` checks, per-record facts of ``split`` checks, the findings of ``runs`` checks (kept until
``runs/`` changes, which rebuilds), and the rest. Waivers are applied last (``finish``), over everything.
"""

from __future__ import annotations

import sys
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchledger.audit.checks import CHECKS, Check
from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.audit.report import AuditReport
from benchledger.audit.waivers import WAIVERS_FILE, Waiver, apply_waivers, load_waivers
from benchledger.ledger.store import Ledger

SCOPES = ("record", "split", "files", "runs")


def scope_of(check: Check) -> str:
    """The check's declared ``SCOPE``; 'ledger' (re-run over the whole ledger) when it declares none."""
    scope = getattr(sys.modules[check.__module__], "SCOPE", "ledger")
    return scope if scope in SCOPES else "ledger"


def checks_of(scope: str) -> list[tuple[str, Check]]:
    return [(name, check) for name, check in CHECKS if scope_of(check) == scope]


@dataclass
class CheckResults:
    """Findings before waivers, as the cache stores them."""

    local: dict[str, list[Finding]] = field(default_factory=dict)
    """Record id → findings of ``record`` checks about it."""
    facts: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Check name → record id → facts (``split`` checks)."""
    runs: list[Finding] = field(default_factory=list)
    """Findings of ``runs`` checks."""
    split: list[Finding] = field(default_factory=list)
    """Findings of ``split`` checks, from every record's facts."""
    other: list[Finding] = field(default_factory=list)
    """Findings of ``files`` and ``ledger`` checks."""


def record_findings(ledger: Ledger, ids: set[str] | None = None, *,
                    ctx: AuditContext | None = None) -> dict[str, list[Finding]]:
    """Findings of every ``record`` check, by record, for ``ids`` (all when None). ``ctx``: a context of this
    ledger to share with ``record_facts`` (what it computes once — the evidence walk, each record's JSON —
    is then computed once for both); else one that checks only ``ids`` (``AuditContext.wanted``)."""
    ctx = ctx or wanted_context(ledger, ids)
    out: dict[str, list[Finding]] = {}
    for _, check in checks_of("record"):
        for finding in check(ctx):
            if ids is None or finding.record in ids:
                out.setdefault(finding.record, []).append(finding)
    return out


def record_facts(ledger: Ledger, ids: set[str] | None = None, *,
                 ctx: AuditContext | None = None) -> dict[str, dict[str, Any]]:
    """Facts of every ``split`` check, by check name then record id, for ``ids`` (all when None)."""
    ctx = ctx or wanted_context(ledger, ids)
    out: dict[str, dict[str, Any]] = {}
    for name, check in checks_of("split"):
        found = _module(check).facts(ctx)
        out[name] = {k: v for k, v in found.items() if ids is None or k in ids}
    return out


def split_findings(facts: dict[str, dict[str, Any]], kinds: dict[str, str]) -> list[Finding]:
    """Findings of every ``split`` check from every record's facts."""
    out: list[Finding] = []
    for name, check in checks_of("split"):
        out.extend(_module(check).from_facts(facts.get(name, {}), kinds))
    return out


def file_findings(ledger: Ledger) -> list[Finding]:
    """Findings of the ``files`` checks (they read only ``errors`` and ``duplicate_ids``)."""
    ctx = AuditContext(ledger)
    return [f for _, check in checks_of("files") for f in check(ctx)]


def run_checks(ledger: Ledger) -> CheckResults:
    """Every check over a whole, loaded ledger."""
    ctx = AuditContext(ledger)
    results = CheckResults()
    for name, check in CHECKS:
        scope = scope_of(check)
        if scope == "record":
            for finding in check(ctx):
                results.local.setdefault(finding.record, []).append(finding)
        elif scope == "split":
            results.facts[name] = _module(check).facts(ctx)
        elif scope == "runs":
            results.runs.extend(check(ctx))
        else:
            results.other.extend(check(ctx))
    kinds: dict[str, str] = {r.id: r.kind for r in ledger}
    results.split = split_findings(results.facts, kinds)
    return results


Waivers = tuple[list[Waiver], list[Finding]]
"""A ledger's waivers and the findings about its waivers file (``audit.waivers.load_waivers``)."""


def waiver_keys(waivers: Waivers) -> set[tuple[str, str]]:
    """``(code, record)`` of every waiver: a finding with no such pair is never waived."""
    return {(w.code, w.record) for w in waivers[0]}


def finish(root: Path, findings: Iterable[Finding], records_checked: int, waivers: Waivers | None = None
           ) -> AuditReport:
    """Apply the ledger's waivers (``waivers``: as loaded already, else read here) and make the report."""
    listed, problems = load_waivers(root) if waivers is None else waivers
    return AuditReport(apply_waivers([*findings, *problems], listed), records_checked=records_checked)


def wanted_context(ledger: Ledger, ids: Collection[str] | None) -> AuditContext:
    """A context of ``ledger`` whose per-record checks read only ``ids`` (every record when None)."""
    return AuditContext(ledger, wanted=None if ids is None else frozenset(ids))


def _module(check: Check) -> Any:
    return sys.modules[check.__module__]


__all__ = ["SCOPES", "WAIVERS_FILE", "CheckResults", "Waivers", "checks_of", "file_findings", "finish", "load_waivers",
           "record_facts", "record_findings", "run_checks", "scope_of", "split_findings", "waiver_keys", "wanted_context"]
