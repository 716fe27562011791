"""One record of an indexed ledger, read from its own file (the index says which), without loading the rest."""

from __future__ import annotations

from pathlib import Path

from benchledger.catalog.cache import Index
from benchledger.errors import LedgerError
from benchledger.ledger.io import load_record
from benchledger.schema import Record


def load_indexed_record(index: Index, record_id: str) -> tuple[Record, Path]:
    """The record with this id and its file; ``LedgerError`` when the index has no such record (with the
    file's load error when a file of that name does not load)."""
    row = index.con.execute("SELECT path FROM records WHERE id = ?", [record_id]).fetchone()
    if row is None:
        broken = index.con.execute("SELECT message FROM findings WHERE code = 'schema.invalid' AND record = ? "
                                   "ORDER BY message", [record_id]).fetchall()
        if broken:
            raise LedgerError(f"record {record_id!r} does not load: {broken[0][0]}")
        raise LedgerError(f"no record with id {record_id!r} in {index.root}")
    path = index.root / str(row[0])
    return load_record(path), path


__all__ = ["load_indexed_record"]
