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

    if only:
        check_only_names(only, [name for name, _ in CHECKS])
    ctx = AuditContext(ledger)
    findings: list[Finding] = []
    with gc_paused():
        for name, check in CHECKS:
            if only and name not in only and name.split(".")[0] not in only:
                continue
            findings.extend(check(ctx))
        waivers, problems = load_waivers(ledger.root)
        applied = apply_waivers(findings + problems, waivers)
        if only and "waivers" not in only:  # a filtered run leaves most waivers unmatched: not a finding then
            applied = [f for f in applied if f.code != "waivers.unused"]
        return AuditReport(applied, records_checked=len(ledger) + len(ledger.errors))


def check_only_names(only: set[str], checks: list[str]) -> None:
    """``LedgerError`` naming every ``only`` entry that is neither a check nor a family (with the closest)."""
    import difflib

    from benchledger.errors import LedgerError

    known = sorted({*checks, *(c.split(".")[0] for c in checks), "waivers"})
    unknown = sorted(only - set(known))
    if unknown:
        hints = [f"{u!r}" + (f" (did you mean {close[0]}?)" if (close := difflib.get_close_matches(u, known, 1))
                             else "") for u in unknown]
        raise LedgerError(f"--only: unknown check {', '.join(hints)}; known: {', '.join(known)}")


__all__ = ["AuditContext", "AuditReport", "Finding", "Severity", "run_audit"]
