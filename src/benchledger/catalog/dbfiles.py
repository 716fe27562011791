"""The cache folder's database files: each index is written to a new file under a writer's lock, then the
pointer file is switched to it (``write_database``); files of killed or outrun writers are removed
(``remove_abandoned``). catalog/refresh.py fills them."""

from __future__ import annotations

import fcntl
import os
import shutil
import threading
import uuid
from collections.abc import Callable
from pathlib import Path

from benchledger.catalog.cache import DB_NAME, POINTER, STATS_SUFFIX
from benchledger.catalog.threads import start_whole
from benchledger.ledger.atomic import atomic_write_text


class NewDatabase:
    """A new database file in the cache folder, held under the writer's lock (``.<name>.lock``: ``remove_abandoned``
    leaves it alone) from before anything is written to it until it is published or removed.

    ``copy_ahead`` starts filling it with a copy of the current database in a background thread, synced to disk
    there: an update writes into such a copy, and DuckDB's ``CHECKPOINT`` at its end syncs the whole file, so
    a copy made just before it would have all its pages (~20 MB at 10,000 records) written while the command
    waits (a checkpoint that took 41-47 ms took 5-8 ms with the copy synced first). Started before the command
    imports what an update needs (the schema, the audit, the physics model: ~0.2 s of CPU), the disk writes
    meanwhile.
    """

    def __init__(self, folder: Path) -> None:
        self.name = f"index-{uuid.uuid4().hex}.duckdb"
        self.path = folder / self.name
        self._lock = folder / f".{self.name}.lock"
        self._pointer = folder / f".{self.name}.pointer"
        self._folder = folder
        self._fd: int | None = os.open(self._lock, os.O_CREAT | os.O_RDWR, 0o644)
        self._copying: threading.Thread | None = None
        self._copied_from: Path | None = None
        self._copy_error: BaseException | None = None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
        except BaseException:
            self.close()
            raise

    def copy_ahead(self, source: Path) -> None:
        """Start copying ``source`` into this file (and syncing it) in a background thread."""
        self._copied_from = source
        thread = threading.Thread(target=self._copy, args=(source,), name="benchledger-copy", daemon=True)
        try:
            start_whole(thread)
        finally:
            self._copying = thread if thread.ident is not None else None  # (started: a Ctrl-C may follow)

    def _copy(self, source: Path) -> None:
        try:
            shutil.copyfile(source, self.path)
            fd = os.open(self.path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except BaseException as exc:  # (raised where the copy is used: copy_of)
            self._copy_error = exc

    def _wait(self) -> None:
        if self._copying is not None:
            self._copying.join()
            self._copying = None

    def copy_of(self, source: Path) -> None:
        """Make this file a copy of ``source``: the one ``copy_ahead`` started (waited for; its error raised
        here), else one made now."""
        self._wait()
        if self._copied_from == source:
            if self._copy_error is not None:
                raise self._copy_error
            return
        shutil.copyfile(source, self.path)
        self._copied_from = source

    def publish(self) -> None:
        """Point the cache at this database."""
        self._pointer.write_text(self.name + "\n", encoding="utf-8")
        self._pointer.replace(self._folder / POINTER)

    def close(self, *, keep: bool = False) -> None:
        """Release the lock; unless ``keep`` (it was published), remove the database (after any copy under way).
        Once: a second call does nothing."""
        if self._fd is None:
            return
        self._wait()
        if not keep:
            remove_database(self.path)
        self._pointer.unlink(missing_ok=True)
        self._lock.unlink(missing_ok=True)
        os.close(self._fd)
        self._fd = None


def write_database(folder: Path, fill: Callable[[NewDatabase], str], new: NewDatabase | None = None) -> tuple[str, Path]:
    """Run ``fill`` on a new database (``new``, else one made here), then point the cache at it; a failed fill
    leaves nothing behind (``new`` is closed either way). The database it replaces is the caller's to remove
    (``remove_in_background``)."""
    new = new if new is not None else NewDatabase(folder)
    published = False
    try:
        status = fill(new)
        new.publish()
        published = True
    finally:
        new.close(keep=published)
    return status, new.path


def remove_in_background(db: Path) -> threading.Thread:
    """Remove a replaced database (``remove_database``) in a thread, to be joined (``cache.Index.close``; the
    interpreter joins it at exit too): the file system frees a file's blocks and cached pages when it is
    removed, ~15 ms for the ~20 MB of a database of 10,000 records, which the command's answer need not wait
    for. A process that dies first leaves it to ``remove_abandoned``."""
    thread = threading.Thread(target=remove_database, args=(db,), name="benchledger-remove")
    start_whole(thread)
    return thread


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


__all__ = ["NewDatabase", "current_db_name", "ignore_in_git", "remove_abandoned", "remove_database", "remove_in_background",
           "write_database"]
