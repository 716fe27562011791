"""The cache folder's database files: each index is written to a new file under a writer's lock, then the
pointer file is switched to it (``write_database``); files of killed or outrun writers are removed
(``remove_abandoned``). catalog/refresh.py fills them."""

from __future__ import annotations

import fcntl
import os
import uuid
from collections.abc import Callable
from pathlib import Path

from benchledger.catalog.cache import DB_NAME, POINTER, STATS_SUFFIX
from benchledger.ledger.atomic import atomic_write_text


def write_database(folder: Path, previous: Path | None, fill: Callable[[Path], str]) -> tuple[str, Path]:
    """Run ``fill(db)`` on a new database file, then point the cache at it and remove ``previous``.

    The writer holds a lock on ``.<name>.lock`` while it works, so a file of a killed writer can be told
    apart (``remove_abandoned``); a failed fill leaves nothing behind.
    """
    name = f"index-{uuid.uuid4().hex}.duckdb"
    db, lock, pointer = folder / name, folder / f".{name}.lock", folder / f".{name}.pointer"
    fd = os.open(lock, os.O_CREAT | os.O_RDWR, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        status = fill(db)
        pointer.write_text(name + "\n", encoding="utf-8")
        pointer.replace(folder / POINTER)
        if previous is not None and previous != db:
            remove_database(previous)
        return status, db
    except BaseException:
        remove_database(db)
        raise
    finally:
        pointer.unlink(missing_ok=True)
        lock.unlink(missing_ok=True)
        os.close(fd)


def remove_database(db: Path) -> None:
    for path in (db, Path(f"{db}.wal"), Path(f"{db}{STATS_SUFFIX}")):
        path.unlink(missing_ok=True)


def ignore_in_git(folder: Path) -> None:
    """Write the cache folder's ``.gitignore`` when it has none, atomically: one cut short (a full disk) would
    stay, empty, and the cache would no longer be ignored."""
    ignore = folder / ".gitignore"
    if not ignore.exists():
        atomic_write_text(ignore, "# the benchledger index cache: rebuilt from the record files, never committed\n*\n")


def remove_abandoned(folder: Path) -> None:
    """Remove databases the pointer does not name and no running writer holds (a killed or outrun command
    leaves them); a process still reading one keeps its open file."""
    pointed = current_db_name(folder)
    for stats in folder.glob(f"index-*.duckdb{STATS_SUFFIX}"):  # one a reader wrote as its database went
        if not stats.with_suffix("").exists():
            stats.unlink(missing_ok=True)
    for db in folder.glob("index-*.duckdb"):
        if db.name == pointed or not DB_NAME.fullmatch(db.name):
            continue
        lock = folder / f".{db.name}.lock"
        try:
            fd = os.open(lock, os.O_RDONLY)
        except FileNotFoundError:
            remove_database(db)
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # another command is writing it
        else:
            remove_database(db)
            for path in (lock, folder / f".{db.name}.pointer"):
                path.unlink(missing_ok=True)
        finally:
            os.close(fd)


def current_db_name(folder: Path) -> str | None:
    try:
        return (folder / POINTER).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None


__all__ = ["current_db_name", "ignore_in_git", "remove_abandoned", "remove_database", "write_database"]
