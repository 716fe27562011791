"""benchledger: an evidence ledger, harness and physics model for LLM inference speed.

Public surface (everything else is internal and may change; ``tests/unit/test_public_api.py`` locks it):

- ``Ledger``: load, query and save the records of a ledger folder.
- ``build_catalog``: build the full DuckDB index of a ledger (its views, the physics tables, the findings).
- ``run_audit``: run every audit check and return an ``AuditReport`` of ``Finding``s.
- ``BenchledgerError`` (base of every error raised on purpose), ``RecordError``, ``LedgerError``.
- ``__version__``.

Names resolve on first use, so ``import benchledger`` (and the CLI's ``--help``) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

from benchledger.errors import BenchledgerError, LedgerError, RecordError

__version__ = "0.1.0"

_LAZY = {
    "Ledger": "benchledger.ledger.store",
    "build_catalog": "benchledger.catalog.build",
    "run_audit": "benchledger.audit",
    "AuditReport": "benchledger.audit.report",
    "Finding": "benchledger.audit.finding",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'benchledger' has no attribute {name!r}")


__all__ = ["AuditReport", "BenchledgerError", "Finding", "Ledger", "LedgerError", "RecordError", "__version__",
           "build_catalog", "run_audit"]
