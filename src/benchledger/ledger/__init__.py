"""The ledger on disk: one record per file, canonical YAML front matter + Markdown body, and its DuckDB index.

Names are imported on first use (PEP 562), so ``benchledger.ledger.location`` loads without the schema.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from benchledger.ledger.io import dump_record, load_record, parse_record, write_record
    from benchledger.ledger.paths import default_ledger_dir, record_path
    from benchledger.ledger.store import Ledger

_HOMES = {"Ledger": "store", "default_ledger_dir": "paths", "dump_record": "io", "load_record": "io",
          "parse_record": "io", "record_path": "paths", "write_record": "io"}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(f"benchledger.ledger.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'benchledger.ledger' has no attribute {name!r}")


__all__ = ["Ledger", "default_ledger_dir", "dump_record", "load_record", "parse_record", "record_path", "write_record"]
