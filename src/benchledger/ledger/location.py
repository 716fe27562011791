"""Where a ledger is and which files are its records, without importing the schema (fast for the CLI).

``ledger.paths`` re-exports these; the cached index (``benchledger.catalog.cache``) uses them to scan a ledger
before deciding whether anything needs to be parsed at all.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from benchledger.errors import LedgerError

ENV_VAR = "BENCHLEDGER_LEDGER"
CACHE_FOLDER = ".benchledger-cache"
"""Inside a ledger: where ``benchledger.catalog.cache`` keeps its index (rebuilt from the files, never committed)."""


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
        if path is None and not os.environ.get(ENV_VAR):
            raise LedgerError(f"no bundled ledger at {root}: it ships with a source checkout of benchledger, not "
                              f"with an installed wheel; pass --ledger DIR or set ${ENV_VAR}")
        raise LedgerError(f"{root}: ledger folder not found (pass --ledger DIR or set ${ENV_VAR})")
    return root


def record_files(root: Path, folders: Iterable[str]) -> list[Path]:
    """Every record file under these kind folders of a ledger, sorted by folder then name."""
    return [root / folder / name for folder, name in record_names(root, folders)]


def record_names(root: Path, folders: Iterable[str]) -> list[tuple[str, str]]:
    """``(folder, file name)`` of every record file, in ``record_files`` order (non-hidden regular files)."""
    names: list[tuple[str, str]] = []
    for folder in sorted(folders):
        try:
            with os.scandir(root / folder) as entries:
                found = sorted(e.name for e in entries if not e.name.startswith(".") and e.is_file())
        except (FileNotFoundError, NotADirectoryError):
            continue
        names.extend((folder, name) for name in found)
    return names


__all__ = [
    "CACHE_FOLDER",
    "ENV_VAR",
    "bundled_ledger_dir",
    "default_ledger_dir",
    "record_files",
    "record_names",
    "resolve_ledger_dir",
]
