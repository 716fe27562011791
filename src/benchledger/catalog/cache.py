"""The persistent index of a ledger, kept in ``<ledger>/.benchledger-cache/``: answer at once when nothing
changed, else bring it up to date (``refresh.py``) and answer.

The cache holds one DuckDB file: the full index (as ``build.build_catalog`` makes it) plus, per record file, its
content hash and what the audit found about it. It is trusted only when its format, benchledger's version and code,
the interpreter and the libraries the index depends on (``code_digest``), and the ledger's path match, and every
record file's hash, ``waivers.yaml`` and the other files' stats equal what it was built from; anything else
(missing, unreadable, stale) is rebuilt. A database built while some files were racy (``scan.py``) has no stat
digest: the first command that hashes them, finds them equal and no longer racy writes one beside it
(``<db>.stats``), so later commands read no file. Updates are written to a temporary copy and moved into place
(``os.replace``), so a reader never sees half an update and two commands at once cannot corrupt it: each leaves a
complete index of the files it read, and the next command compares again. This module imports nothing heavy; the
audit and the physics model load only when something changed.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import importlib.util
import json
import os
import re
import sys
import threading
import time
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from benchledger import __version__
from benchledger.catalog.scan import (
    FileStat,
    Stat,
    file_digest,
    manifest_digest,
    others_digest,
    scan_files,
)
from benchledger.catalog.statsahead import StatsAhead
from benchledger.ledger.atomic import atomic_write_text
from benchledger.ledger.collector import gc_paused
from benchledger.ledger.duckdb_engine import duckdb
from benchledger.ledger.location import CACHE_FOLDER, resolve_ledger_dir
from benchledger.ledger.sql import quote_identifier, sql_text

if TYPE_CHECKING:
    from benchledger.audit.report import AuditReport
    from benchledger.catalog.dbfiles import NewDatabase

CACHE_DIR = CACHE_FOLDER
POINTER = "CURRENT"
"""The file in the cache folder that names the current database (replaced atomically)."""
DB_NAME = re.compile(r"index-[0-9a-f]{32}\.duckdb")
META_KEYS = ("format", "version", "code", "root", "folders", "hashed_files", "hashed_digests", "others",
             "records_checked", "misplaced", "stat_digest")
"""What ``_cache_meta`` holds (``refresh._meta_rows`` writes it)."""
STATS_SUFFIX = ".stats"
"""``<db>.stats``: the stat digest of the record files that database was last found current for."""
STAT_DIGEST = re.compile(r"[0-9a-f]{64}")
CACHE_FORMAT = "2"
PACKAGE_DIR = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class CachedState:
    """What a cached index was built from (its ``_cache_meta`` and ``_cache_files``)."""

    meta: dict[str, str]
    files: dict[str, FileStat]
    loaded: dict[str, tuple[str | None, str | None, int | None, str | None, str | None, str | None]]
    """Per file: record id and kind, or the load error's line, field and message."""

    @property
    def folders(self) -> list[str]:
        return list(json.loads(self.meta["folders"]))


@dataclass
class Index:
    """An open index of a ledger and how it was obtained."""

    con: duckdb.DuckDBPyConnection
    root: Path
    status: str
    """'current' (answered from the cache), 'updated …', 'rebuilt …' or 'built without cache (why)'."""
    records_checked: int
    not_kept: str | None = None
    """Why this index, built afresh, could not be kept in the cache (None: it is, or none was asked for)."""
    removing: threading.Thread | None = None
    """The removal of the database this one replaced, under way (``dbfiles.remove_in_background``)."""

    def report(self) -> AuditReport:
        """The audit report stored in the index (waivers applied)."""
        from benchledger.audit.finding import Finding
        from benchledger.audit.report import AuditReport

        cur = self.con.execute("SELECT code, severity, record, field, message, waived, waiver_reason FROM t_findings")
        return AuditReport([Finding(*row) for row in cur.fetchall()], records_checked=self.records_checked)

    def load_failures(self) -> list[tuple[str, str]]:
        """``(record, message)`` of every file that failed to load (``schema.invalid``, ``files.*``)."""
        return [(str(r), str(m)) for r, m in self.con.execute(
            "SELECT record, message FROM t_findings WHERE code = 'schema.invalid' OR code LIKE 'files.%' "
            "ORDER BY message").fetchall()]

    def close(self) -> None:
        self.con.close()
        if self.removing is not None:
            self.removing.join()


def cache_dir(root: Path) -> Path:
    return root / CACHE_DIR


def code_digest() -> str:
    """A digest of benchledger's own files, the interpreter and the libraries the index's content depends on
    (``RESULT_LIBRARIES``): a cache built by other code is not trusted."""
    digest = hashlib.sha256(f"{CACHE_FORMAT}\0{__version__}\0{sys.version}\n".encode())
    for dirpath, dirnames, filenames in os.walk(PACKAGE_DIR):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith((".py", ".sql")):
                st = (Path(dirpath) / name).stat()
                digest.update(f"{dirpath}/{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    for line in library_identities():
        digest.update(f"{line}\n".encode())
    return digest.hexdigest()


RESULT_LIBRARIES = {"duckdb": "duckdb", "_duckdb": "duckdb", "pydantic": "pydantic",
                    "pydantic_core": "pydantic_core", "yaml": "pyyaml", "orjson": "orjson"}
"""Module → its distribution, for the libraries whose behaviour is part of what the index holds: YAML scalars
(``ledger/blockyaml.py``), validation and the records' JSON (the checks' facts), the rows' JSON, DuckDB's
storage and SQL. A cache built under another version of one is rebuilt, as a fresh build would differ."""


def library_identities() -> list[str]:
    """Per ``RESULT_LIBRARIES`` module, where it is imported from (its file's path, size, mtime and inode) and
    the installed version beside it (``<dist>-<version>.dist-info``), found without importing it."""
    lines: list[str] = []
    listed: dict[Path, list[str]] = {}
    for module, dist in RESULT_LIBRARIES.items():
        spec = importlib.util.find_spec(module)
        origin = Path(spec.origin) if spec is not None and spec.origin is not None else None
        if spec is None or origin is None or not origin.is_file():
            lines.append(f"{module}\0-")
            continue
        st = origin.stat()
        site = origin.parent.parent if spec.submodule_search_locations is not None else origin.parent
        if site not in listed:
            try:
                listed[site] = sorted(p.name.lower() for p in site.iterdir() if p.name.endswith(".dist-info"))
            except OSError:
                listed[site] = []
        versions = [n for n in listed[site] if n.startswith(f"{dist}-")]
        lines.append(f"{module}\0{origin}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\0{' '.join(versions)}")
    return lines


def open_index(ledger_dir: Path | str | None = None, *, cache: bool = True, rebuild: bool = False,
               clock: Callable[[], int] = time.time_ns, jobs: int | None = None) -> Index:
    """The index of a ledger: from its cache when current, else refreshed (``rebuild``: from scratch).

    ``cache=False`` builds a fresh index in memory and leaves the cache alone. ``clock`` (ns since the epoch)
    dates the scan: a file changed within ``scan.RACY_NS`` of it is hashed again next time. A rebuild runs in
    ``jobs`` worker processes (None: ``workers.default_jobs()``). The cyclic GC is paused meanwhile: an update
    imports the schema, the audit and the physics model and reads a row per record file, and a collection
    would rescan them all again and again (``ledger/collector.py``).
    """
    with gc_paused():
        return _open_index(ledger_dir, cache, rebuild, clock, jobs)


def _open_index(ledger_dir: Path | str | None, cache: bool, rebuild: bool, clock: Callable[[], int],
                jobs: int | None) -> Index:
    root = resolve_ledger_dir(ledger_dir).resolve()
    if not cache:
        return _uncached(root, "--no-cache")
    started = clock()
    code = code_digest()
    db = None if rebuild else current_db(root)
    stats = StatsAhead(root) if db is not None else None  # (taken while DuckDB starts: ``statsahead.py``)
    try:
        con, meta = _open_meta(db, root, code)
        if meta is None and db is not None and current_db(root) != db:  # replaced while we opened it: once more
            db = current_db(root)
            con, meta = _open_meta(db, root, code)
    except BaseException:
        if stats is not None:
            stats.wait()
        raise
    if stats is not None and meta is None:
        stats.wait()  # (not used: a rebuild forks its workers, with no other thread running)
    state = files = ahead = None
    if con is not None and meta is not None and db is not None and stats is not None:
        digest, listed = stats.current_stats(json.loads(meta["folders"]))
        if _stats_vouch(root, meta, db, digest, listed):
            return Index(con, root, "current", int(meta["records_checked"]))
        state = _read_files(con, meta)
        if state is not None:
            files = scan_files(root, state.folders, state.files, started, listed=listed)
            if is_current(root, state, files):
                _vouch(db, meta, files)
                return Index(con, root, "current", int(meta["records_checked"]))
            ahead = _copy_ahead(root, db)  # (for the update, while what it needs is imported)
    try:
        from benchledger.catalog.dbfiles import remove_in_background
        from benchledger.catalog.refresh import refresh
        from benchledger.ledger.paths import require_ledger_layout

        if state is None and con is not None:  # a rebuild: no database to share the connection with
            con.close()
            con = None
        require_ledger_layout(root)  # (a current cache was built from a ledger: that path needs no check)
        previous = db if state is not None else None
        status, db = refresh(root, cache_dir(root), previous, state, files, started, code, jobs, con, ahead)
    except BaseException as exc:
        if con is not None:
            con.close()
        reason = _not_written(exc, cache_dir(root))
        if reason is None:
            raise
        return _uncached(root, reason, kept=False)  # (what was written of it is removed: dbfiles.write_database)
    finally:
        if ahead is not None:
            ahead.close()  # (once: refresh closed it, unless it raised first)
    con, meta = _open_meta(db, root, code, con if status.startswith("updated") else None)  # (a rebuild closed it)
    removing = None if previous in (None, db) else remove_in_background(previous)  # (detached from ``con`` now)
    if con is None or meta is None:
        if removing is not None:
            removing.join()
        return _uncached(root, "the cache just written could not be read back", kept=False)
    return Index(con, root, status, int(meta["records_checked"]), removing=removing)


def _copy_ahead(root: Path, db: Path) -> NewDatabase | None:
    """A new database for the update, ``db`` being copied into it in the background (``dbfiles.NewDatabase``);
    None when the cache folder cannot be written (the update then meets that itself)."""
    from benchledger.catalog.dbfiles import NewDatabase

    try:
        new = NewDatabase(cache_dir(root))
    except OSError:
        return None
    try:
        new.copy_ahead(db)
    except BaseException:  # (a Ctrl-C once the copy has started)
        new.close()
        raise
    return new


_WRITE_ERRNOS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
"""The OS errors that say a file could not be written, wherever: no permission, a read-only file system, a full
disk, a quota, a file size limit."""


def _not_written(exc: BaseException, cache: Path) -> str | None:
    """Why the cache could not be written, when that is what ``exc`` says: an OS error of ``_WRITE_ERRNOS`` (a
    read-only ledger folder, a full disk, a file size limit), any OS error about a path in ``cache`` or ``cache``
    itself (a file where the folder should be), or DuckDB's failure to write its file (its I/O error, or the fatal
    error a checkpoint that could not write raises). The answer is then built afresh in memory, which needs no
    cache; anything else (a ledger file that is a folder, a bad descriptor, …) is raised."""
    if isinstance(exc, OSError):
        about = {Path(os.fsdecode(name)) for name in (exc.filename, exc.filename2) if name is not None}
        if exc.errno in _WRITE_ERRNOS or any(p.is_relative_to(cache) for p in about):
            return f"{CACHE_DIR}/ not writable: {exc.strerror or exc}"
        return None
    if isinstance(exc, duckdb.IOException | duckdb.FatalException):
        return f"{CACHE_DIR}/ could not be written: {(str(exc).splitlines() or [type(exc).__name__])[0]}"
    return None


def is_current(root: Path, state: CachedState, files: dict[str, FileStat]) -> bool:
    """Whether the cached index was built from exactly these files."""
    if files.keys() != state.files.keys() or any(f.sha256 != state.files[p].sha256 for p, f in files.items()):
        return False
    return _others_current(root, state.meta, files.keys())


def _stats_vouch(root: Path, meta: dict[str, str], db: Path, digest: str, listed: list[Stat]) -> bool:
    """Whether every record file's stat (``listed``, of ``stat_digest`` ``digest``) equals one the cache was
    found current for (its build's, or the one ``_vouch`` wrote): then no file needs hashing."""
    vouched = {meta["stat_digest"], _vouched_digest(db)} - {""}
    return digest in vouched and _others_current(root, meta, {s[0] for s in listed})


def _vouched_digest(db: Path) -> str:
    """The stat digest written beside ``db`` by ``_vouch`` ('' when there is none or it is not one)."""
    try:
        text = Path(f"{db}{STATS_SUFFIX}").read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""
    return text if STAT_DIGEST.fullmatch(text) else ""


def _vouch(db: Path, meta: dict[str, str], files: dict[str, FileStat]) -> None:
    """Write ``<db>.stats``: ``files`` were just found equal to ``db``'s, and when none of them is racy any more
    their stats vouch for their bytes next time (after a build with racy files, or a ``touch`` or checkout that
    kept every byte). A cache folder that cannot be written is left as it is."""
    digest = manifest_digest(files.values())
    if digest and digest not in (meta["stat_digest"], _vouched_digest(db)):
        with contextlib.suppress(OSError):
            atomic_write_text(Path(f"{db}{STATS_SUFFIX}"), digest + "\n")


def _others_current(root: Path, meta: dict[str, str], records: AbstractSet[str]) -> bool:
    hashed = json.dumps([file_digest(root / name) for name in json.loads(meta["hashed_files"])])
    skip = {*json.loads(meta["hashed_files"]), CACHE_DIR}
    return hashed == meta["hashed_digests"] and others_digest(root, skip, records) == meta["others"]


def current_db(root: Path) -> Path | None:
    """The database the cache's pointer names (None when there is none or it names no database).

    Each update writes a new file and then moves the pointer, so a process that still has the old database
    open (DuckDB shares one instance per path within a process) never sees it change under it.
    """
    folder = cache_dir(root)
    try:
        name = (folder / POINTER).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return folder / name if DB_NAME.fullmatch(name) else None


def _open_meta(db: Path | None, root: Path, code: str,
               con: duckdb.DuckDBPyConnection | None = None) -> tuple[duckdb.DuckDBPyConnection | None, dict[str, str] | None]:
    """A connection with ``db`` attached read-only (``attach_read_only``; on ``con`` when given, else on a new
    one) and its metadata; ``(None, None)`` when it is missing, unreadable or not made by this code for this
    ledger (``con`` is then closed)."""
    if db is None or not db.is_file():
        if con is not None:
            con.close()
        return None, None
    try:
        fresh = con is None
        con = con or duckdb.connect(":memory:")
        attach_read_only(con, db, only_memory=fresh)
        meta = dict(con.execute("SELECT key, value FROM _cache_meta").fetchall())
        if meta.get("code") == code and meta.get("root") == str(root) and set(META_KEYS) <= set(meta):
            int(meta["records_checked"])
            return con, meta
    except (duckdb.Error, ValueError):
        pass
    if con is not None:
        con.close()
    return None, None


def attach_read_only(con: duckdb.DuckDBPyConnection, db: Path, *, only_memory: bool = False) -> None:
    """Make ``db``, read-only and named after its file, the only database of ``con`` (the others detached;
    ``only_memory``: ``con`` is new, its one database is the in-memory one).

    One DuckDB instance per command (an in-memory one, the cache's files attached to it): an update attaches
    its copy to it and then the result, without starting DuckDB again (each start costs ~30 ms of CPU).
    """
    name = quote_identifier(db.stem)
    con.execute(f"ATTACH {sql_text(str(db))} AS {name} (READ_ONLY)")
    con.execute(f"USE {name}")
    others = ["memory"] if only_memory else [str(other) for (other,) in con.execute(
        "SELECT database_name FROM duckdb_databases() WHERE NOT internal AND database_name <> ?", [db.stem]).fetchall()]
    for other in others:
        con.execute(f"DETACH {quote_identifier(other)}")


def _read_files(con: duckdb.DuckDBPyConnection, meta: dict[str, str]) -> CachedState | None:
    try:
        rows = con.execute("SELECT path, sha256, size, mtime_ns, ctime_ns, ino, racy, record_id, kind, err_line, "
                           "err_field, err_message, err_code FROM _cache_files").fetchall()
    except duckdb.Error:
        return None
    return CachedState(meta, {r[0]: FileStat(*r[:7]) for r in rows}, {r[0]: r[7:] for r in rows})


def _uncached(root: Path, why: str, *, kept: bool = True) -> Index:
    """A fresh index in memory, built ``why``; ``kept=False``: one meant for the cache, which could not be kept."""
    from benchledger.catalog.build import build_catalog
    from benchledger.ledger.store import Ledger

    ledger = Ledger.load(root, require_layout=True)
    return Index(build_catalog(ledger), root, f"built without cache ({why})", len(ledger) + len(ledger.errors),
                 None if kept else why)


__all__ = ["CACHE_DIR", "CACHE_FORMAT", "DB_NAME", "META_KEYS", "POINTER", "STATS_SUFFIX", "CachedState", "Index",
           "cache_dir", "code_digest", "current_db", "is_current", "open_index"]
