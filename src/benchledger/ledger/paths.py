"""Where ledgers live: ids ↔ paths, the bundled ledger, and ``$BENCHLEDGER_LEDGER``."""

from __future__ import annotations

import os
from pathlib import Path

from benchledger.errors import LedgerError
from benchledger.schema import KIND_FOLDERS

RECORD_SUFFIX = ".md"
FOLDER_KINDS: dict[str, str] = {folder: kind for kind, folder in KIND_FOLDERS.items()}
ENV_VAR = "BENCHLEDGER_LEDGER"


def bundled_ledger_dir() -> Path:
    """The public ledger shipped with the project (``ledger/`` at the repository root)."""
    return Path(__file__).resolve().parents[3] / "ledger"


def default_ledger_dir() -> Path:
    """``$BENCHLEDGER_LEDGER`` when set, else the bundled ledger."""
    env = os.environ.get(ENV_VAR)
    return Path(env) if env else bundled_ledger_dir()


def resolve_ledger_dir(path: Path | str | None) -> Path:
    """The ledger folder to use for a command; it must exist."""
    root = Path(path) if path is not None else default_ledger_dir()
    if not root.is_dir():
        raise LedgerError(f"{root}: ledger folder not found (pass --ledger DIR or set ${ENV_VAR})")
    return root


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
    files: list[Path] = []
    for folder in sorted(FOLDER_KINDS):
        directory = root / folder
        if directory.is_dir():
            files.extend(sorted(p for p in directory.iterdir() if p.is_file() and not p.name.startswith(".")))
    return files


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
