"""``benchledger init --with-reference`` gives a ledger that audits clean: measured reference numbers bring
their run data along."""

from __future__ import annotations

from pathlib import Path

from benchledger.audit import run_audit
from benchledger.ledger.scaffold import init_ledger
from benchledger.ledger.store import Ledger


def test_init_with_reference_audits_without_errors(tmp_path: Path) -> None:
    root = init_ledger(tmp_path / "ledger", with_reference=True)
    errors = [f for f in run_audit(Ledger.load(root)).findings if f.severity == "error"]
    assert errors == [], [(f.code, f.record, f.field) for f in errors[:5]]
