"""Where ledgers live: ids ↔ paths, the bundled ledger, and ``$BENCHLEDGER_LEDGER``."""

from __future__ import annotations

import os
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
RUN_RAW_FILE = "requests.jsonl"
"""The raw data of a measured value whose ``run`` is a folder (what its ``sha256`` is of)."""


def require_ledger_layout(root: Path) -> None:
    """A folder read as a ledger must have at least one kind folder: an empty or unrelated folder is an error
    (reading it would report "0 records, 0 errors"). Writers (import, bench --record) may start from empty."""
    if not any((root / folder).is_dir() for folder in FOLDER_KINDS):
        raise LedgerError(f"{root}: not a ledger (none of {', '.join(f + '/' for f in sorted(FOLDER_KINDS))} "
                          "is there); start one with `benchledger init DIR`")


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


def misplaced_files(root: Path) -> list[Path]:
    """Files inside sub-folders of the kind folders (e.g. under ``benchmarks/sub/``): never loaded, always reported."""
    found: list[Path] = []
    for folder in sorted(FOLDER_KINDS):
        directory = root / folder
        try:  # (``os.scandir``: a kind folder holds thousands of files, told from folders without a stat each)
            with os.scandir(directory) as it:
                subs = sorted(e.name for e in it if not e.name.startswith(".") and e.is_dir())
        except (FileNotFoundError, NotADirectoryError):
            continue
        for sub in subs:
            found.extend(sorted(p for p in (directory / sub).rglob("*") if p.is_file() and not p.name.startswith(".")))
    return found


__all__ = [
    "ENV_VAR",
    "FOLDER_KINDS",
    "RECORD_SUFFIX",
    "RUN_RAW_FILE",
    "bundled_ledger_dir",
    "default_ledger_dir",
    "iter_record_files",
    "kind_of_path",
    "misplaced_files",
    "record_path",
    "require_ledger_layout",
    "resolve_ledger_dir",
]
