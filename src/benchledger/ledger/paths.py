"""Where ledgers live: ids ↔ paths, the bundled ledger, and ``$BENCHLEDGER_LEDGER``."""

from __future__ import annotations

from pathlib import Path

from benchledger.errors import LedgerError
from benchledger.ledger.location import (
    ENV_VAR,
    bundled_ledger_dir,
    default_ledger_dir,
    record_files,
    resolve_ledger_dir,
)
from benchledger.schema import KIND_FOLDERS

RECORD_SUFFIX = ".md"
FOLDER_KINDS: dict[str, str] = {folder: kind for kind, folder in KIND_FOLDERS.items()}


def record_path(root: Path, kind: str, record_id: str) -> Path:
    """``<root>/<kind folder>/<id>.md``."""
    if kind not in KIND_FOLDERS:
        raise LedgerError(f"unknown record kind {kind!r}; expected one of {', '.join(KIND_FOLDERS)}")
    return root / KIND_FOLDERS[kind] / f"{record_id}{RECORD_SUFFIX}"


def kind_of_path(path: Path) -> str | None:
    """The record kind a file's folder implies, or None when the folder is not a kind folder."""
    return FOLDER_KINDS.get(path.parent.name)


def iter_record_files(root: Path) -> list[Path]:
    """Every record file of a ledger, sorted by kind folder then name."""
    return record_files(root, FOLDER_KINDS)


__all__ = [
    "ENV_VAR",
    "FOLDER_KINDS",
    "RECORD_SUFFIX",
    "bundled_ledger_dir",
    "default_ledger_dir",
    "iter_record_files",
    "kind_of_path",
    "record_path",
    "resolve_ledger_dir",
]
