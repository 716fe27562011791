"""One record of an indexed ledger, read from its own file (the index says which), without loading the rest."""

from __future__ import annotations

from pathlib import Path

from benchledger.catalog.cache import Index
from benchledger.errors import LedgerError
from benchledger.ledger.io import load_record
from benchledger.schema import Record


def load_indexed_record(index: Index, record_id: str) -> tuple[Record, Path]:
    """The record with this id and its file; ``LedgerError`` when the index has no such record (naming the
    load error of its file when that file failed to load)."""
    row = index.con.execute("SELECT path FROM records WHERE id = ?", [record_id]).fetchone()
    if row is None:
        require_loaded(index, record_id)
        raise LedgerError(f"no record with id {record_id!r} in {index.root}")
    path = index.root / str(row[0])
    return load_record(path), path


def require_loaded(index: Index, record_id: str) -> None:
    """``LedgerError`` with the load error when the file named ``record_id`` failed to load."""
    failed = [message for record, message in index.load_failures() if record == record_id]
    if failed:
        raise LedgerError(f"record {record_id!r} does not load: {failed[0]}")


__all__ = ["load_indexed_record", "require_loaded"]
