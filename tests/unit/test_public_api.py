"""The public API of ``benchledger`` is exactly what its docstring promises, and every name resolves."""

from __future__ import annotations

import re

import benchledger

PUBLIC = {"AuditReport", "BenchledgerError", "Finding", "Ledger", "LedgerError", "RecordError", "__version__",
          "build_catalog", "run_audit"}


def test_all_is_the_locked_public_surface() -> None:
    assert set(benchledger.__all__) == PUBLIC


def test_every_public_name_resolves_to_the_real_object() -> None:
    from benchledger.audit import run_audit
    from benchledger.catalog.build import build_catalog
    from benchledger.ledger.store import Ledger

    for name in PUBLIC:
        assert getattr(benchledger, name) is not None, name
    assert benchledger.Ledger is Ledger and benchledger.run_audit is run_audit
    assert benchledger.build_catalog is build_catalog


def test_the_docstring_names_exactly_the_public_names() -> None:
    doc = benchledger.__doc__ or ""
    surface = doc.split("Public surface", 1)[1].split("Names resolve", 1)[0]
    named = set(re.findall(r"``(\w+)``", surface))
    assert named == PUBLIC
