"""The audit: named checks (one per module in ``checks/``) yield findings; waivers are applied from data."""

from __future__ import annotations

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding, Severity
from benchledger.audit.report import AuditReport
from benchledger.audit.waivers import apply_waivers, load_waivers
from benchledger.ledger.store import Ledger, gc_paused


def run_audit(ledger: Ledger, *, only: set[str] | None = None) -> AuditReport:
    """Run every registered check (or only the given families/codes' checks) and apply waivers."""
    from benchledger.audit.checks import CHECKS

    ctx = AuditContext(ledger)
    findings: list[Finding] = []
    with gc_paused():
        for name, check in CHECKS:
            if only and name not in only and name.split(".")[0] not in only:
                continue
            findings.extend(check(ctx))
        waivers, problems = load_waivers(ledger.root)
        return AuditReport(apply_waivers(findings + problems, waivers),
                           records_checked=len(ledger) + len(ledger.errors))


__all__ = ["AuditContext", "AuditReport", "Finding", "Severity", "run_audit"]
