"""Bringing a cached index up to date: rebuild it, or re-run only what the changed files reach.

When only benchmark record files changed (edited, added, removed, renamed) and no id is used twice, the
changed files are parsed, their rows replaced in every per-record table, the ``record`` checks re-run for
them alone (with the non-benchmark records they may read) and their ``split`` facts replaced (one row per
record and check); the ``split`` findings are kept when those facts and every id's kind are unchanged, else
made from every record's cached facts; the ``files`` checks run on the cached load errors and sub-folder
files, the ``runs`` checks' findings are kept as cached (``runs/`` is not read). In ``t_findings`` only the
rows of the changed records and of the combined findings (everything but the cached ``record``-check
findings no waiver names: ``_cache_combined``) are replaced, all rows when ``waivers.yaml`` changed.
Any other change — a reference record or source, a file under ``runs/``, a check without ``SCOPE``, a table
without a record key — rebuilds the index from every file. Either way the result is what
``build.build_catalog`` gives for the same files (tests/integration/test_index_cache.py checks that).

An update writes a copy of the current database (a file copy: ~15 ms at 10,000 records, started in the
background before this module is imported, ``dbfiles.NewDatabase``), attached to the command's one DuckDB
instance, in one transaction, then points the cache at it (``dbfiles.write_database``).
Not the database itself: every command reading it holds DuckDB's shared lock on its file, and writing it in
place would need the exclusive one, so an update would wait for (or fail on) every query running.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchledger import __version__
from benchledger.audit.finding import Finding
from benchledger.audit.report import AuditReport
from benchledger.catalog import checking
from benchledger.catalog.build import create_catalog_views
from benchledger.catalog.cache import (
    CACHE_DIR,
    CACHE_FORMAT,
    META_KEYS,
    CachedState,
)
from benchledger.catalog.cachetables import (
    FACT_COLUMNS,
    FILE_COLUMNS,
    LOCAL_COLUMNS,
    by_record,
    fact_rows,
    local_rows,
)
from benchledger.catalog.contextcache import context_digest, create_context_table, keep_context, kept_context
from benchledger.catalog.dbfiles import NewDatabase, ignore_in_git, remove_abandoned, write_database
from benchledger.catalog.entries import load_entry
from benchledger.catalog.listing import Listing
from benchledger.catalog.scan import (
    FileStat,
    file_digest,
    manifest_digest,
    others_digest,
    scan_files,
    sha256_bytes,
)
from benchledger.catalog.tables import (
    EFFICIENCY_COLUMNS,
    FINDING_COLUMNS,
    benchmark_efficiency,
)
from benchledger.ledger.duckdb_engine import duckdb
from benchledger.ledger.index import RECORD_KEYS, TABLES, Columns, create_table, insert_files, write_rows
from benchledger.ledger.io import load_record_bytes
from benchledger.ledger.paths import FOLDER_KINDS
from benchledger.ledger.rows import Row
from benchledger.ledger.sql import quote_identifier, sql_text
from benchledger.ledger.store import Ledger, gc_paused, misplaced_file_errors
from benchledger.perfmodel.ceiling import CeilingInputs
from benchledger.schema import KIND_FOLDERS, Benchmark, Record

BENCHMARK_FOLDER = KIND_FOLDERS["benchmark"]
HASHED_FILES = (checking.WAIVERS_FILE,)
META_COLUMNS: Columns = {"key": "VARCHAR", "value": "VARCHAR"}


class _Rebuild(Exception):
    """The change cannot be applied incrementally; rebuild."""


@dataclass
class _Tables:
    """The database being written, and a folder for the rows on their way in (``ledger.index.insert_files``)."""

    con: duckdb.DuckDBPyConnection
    folder: Path
    written: int = 0
    holding: dict[str, bool] = field(default_factory=dict)
    """Whether a table holds a row of the ids being replaced (``find_holding``); a table not named may."""

    def insert(self, table: str, columns: Columns, rows: Iterable[Row]) -> None:
        listed = list(rows)
        if listed:  # (no file, no read for none)
            self.written += 1
            insert_files(self.con, table, columns, [write_rows(self.folder / f"rows-{self.written}.json", listed)])

    def replace(self, table: str, key: str, ids: list[str], rows: Iterable[Row], columns: Columns) -> None:
        """Delete the rows whose ``key`` is one of ``ids``, then insert ``rows``."""
        if self.holding.get(table, True):
            among, params = _among(quote_identifier(key), ids)
            self.con.execute(f"DELETE FROM {quote_identifier(table)} WHERE {among}", params)
        self.insert(table, columns, rows)

    def find_holding(self, keys: dict[str, str], ids: list[str]) -> None:
        """Find, in one query, which of these tables (name → key column) hold a row of one of ``ids``: the
        others need no ``DELETE`` (a statement costs ~1-5 ms; most tables hold no row of a benchmark)."""
        among, params = _among("k", ids)
        parts = [f"SELECT {sql_text(table)} AS t FROM (SELECT {quote_identifier(key)} AS k FROM "
                 f"{quote_identifier(table)}) WHERE {among} LIMIT 1" for table, key in keys.items()]
        found = self.con.execute(" UNION ALL ".join(f"({part})" for part in parts), params * len(parts)).fetchall()
        self.holding = {table: False for table in keys} | {str(t): True for (t,) in found}

    def fill(self, table: str, columns: Columns, rows: Iterable[Row]) -> None:
        create_table(self.con, table, columns)
        self.insert(table, columns, rows)


FEW_IDS = 256


def _among(column: str, ids: list[str]) -> tuple[str, list[Any]]:
    """SQL and parameters for "``column`` is one of ``ids``": up to ``FEW_IDS`` a list of constants (DuckDB
    checks them against each row group's min/max, skipping most of a table in id order), else one list."""
    if len(ids) <= FEW_IDS:
        return f"{column} IN ({', '.join('?' * len(ids)) or 'NULL'})", list(ids)
    return f"{column} IN (SELECT unnest(?::VARCHAR[]))", [ids]


@dataclass(frozen=True)
class _Inputs:
    """Digests of the files besides the records, taken before anything is read."""

    hashed: str
    others: str

    @classmethod
    def now(cls, root: Path, files: AbstractSet[str], started_ns: int | None = None) -> _Inputs:
        """``started_ns``: the scan's time; the other files' digest is then '' (stale) if any of them is racy."""
        return cls(json.dumps([file_digest(root / name) for name in HASHED_FILES]),
                   others_digest(root, {*HASHED_FILES, CACHE_DIR}, files, started_ns))


def refresh(root: Path, folder: Path, previous: Path | None, state: CachedState | None,
            files: dict[str, FileStat] | None, started_ns: int, code: str, jobs: int | None = 1,
            con: duckdb.DuckDBPyConnection | None = None, ahead: NewDatabase | None = None) -> tuple[str, Path]:
    """Write an up-to-date index into the cache ``folder`` and point the cache at it.

    ``previous`` is the current database (it holds ``state``; left for the caller to remove). Returns what was
    done ('updated …' or 'rebuilt …') and the new database. A rebuild runs in ``jobs`` worker processes where it
    can (``cold.py``; None: ``workers.default_jobs()``).
    ``con``: the command's DuckDB connection, to which an update attaches its copy (else a new one); a
    rebuild closes it. ``ahead``: the new database, a copy of ``previous`` under way (``NewDatabase.copy_ahead``)
    for an update to write into; it is closed either way.
    """
    folder.mkdir(exist_ok=True)
    ignore_in_git(folder)
    remove_abandoned(folder)
    if files is None:
        files = scan_files(root, sorted(FOLDER_KINDS), {}, started_ns, hashed=False)  # hashed as parsed
    inputs = _Inputs.now(root, files.keys(), started_ns)
    with gc_paused():
        if state is not None and previous is not None:
            with contextlib.suppress(_Rebuild):
                return write_database(folder, lambda new: _update(root, new, previous, state, files, inputs, code,
                                                                   con), ahead)
        elif ahead is not None:
            ahead.close()
        if con is not None:
            con.close()  # (before the rebuild forks its workers)
        return write_database(folder, lambda new: _rebuild(root, new.path, files, inputs, code, jobs))


def _rebuild(root: Path, tmp: Path, files: dict[str, FileStat], inputs: _Inputs, code: str, jobs: int | None) -> str:
    from benchledger.catalog.cold import built_tables, cold_build  # (workers: only a rebuild needs them)
    from benchledger.catalog.loading import RowLoader
    from benchledger.catalog.workers import default_jobs

    jobs = default_jobs() if jobs is None else jobs

    with tempfile.TemporaryDirectory(prefix="benchledger-rows-") as workdir:
        rows = RowLoader(tmp, built_tables(), _prepare_rebuild)
        try:
            built = cold_build(root, files, Path(workdir), jobs, rows=rows)  # (the rows loaded as they are made)
            misplaced = [path.relative_to(root).as_posix() for path in built.misplaced]  # (as the build found them)
            con = rows.connection()
            out = _Tables(con, Path(workdir))
            out.fill("_cache_run_findings", LOCAL_COLUMNS, local_rows(by_record(built.runs)))
            out.fill("_cache_split", LOCAL_COLUMNS, local_rows(by_record(built.split)))
            create_table(con, "_cache_combined", FINDING_COLUMNS)
            create_context_table(con)
            context = [(rel, built.parsed.records[e.record_id]) for rel, e in built.entries.items()
                       if e.kind not in (None, "benchmark") and e.record_id is not None
                       and built.parsed.paths.get(e.record_id) == root / rel]
            keep_context(con, context_digest((rel, built.entries[rel].stat.sha256) for rel, _ in context), context)
            report = _write_findings(out, root, [*built.runs, *built.split, *built.other], built.records_checked, None)
            out.fill("_cache_meta", META_COLUMNS, _meta_rows(root, code, report, inputs,
                                                             (e.stat for e in built.entries.values()), misplaced))
            con.execute("CHECKPOINT")
        finally:
            rows.close()
    workers = f" by {built.workers} workers" if built.workers else ""
    return f"rebuilt from {len(built.entries)} files{workers}"


def _prepare_rebuild(con: duckdb.DuckDBPyConnection) -> None:
    """The rest of a new database's tables before its rows: ``t_findings``, then every view."""
    create_table(con, "t_findings", FINDING_COLUMNS)
    create_catalog_views(con)


def _update(root: Path, new: NewDatabase, previous: Path, state: CachedState, files: dict[str, FileStat],
            inputs: _Inputs, code: str, con: duckdb.DuckDBPyConnection | None) -> str:
    if checking.checks_of("ledger") or set(TABLES) - set(RECORD_KEYS) - {"t_metrics"}:
        raise _Rebuild
    if not inputs.others or inputs.others != state.meta["others"]:  # '': a racy file, its stat vouches for nothing
        raise _Rebuild
    new.copy_of(previous)
    with _attached(con, new.path, previous.stem) as writer, \
            tempfile.TemporaryDirectory(prefix="benchledger-rows-") as workdir:
        return _update_copy(root, _Tables(writer, Path(workdir)), state, files, inputs, code)


@contextlib.contextmanager
def _attached(con: duckdb.DuckDBPyConnection | None, db: Path, before: str) -> Iterator[duckdb.DuckDBPyConnection]:
    """``db`` attached for writing to ``con`` (its default database while attached; ``before`` after), written in
    one transaction: committed and checkpointed when the block ends, rolled back when it raises (then
    ``_Rebuild`` for a DuckDB error). Without ``con``, a connection of its own."""
    own = con is None
    writer = duckdb.connect(":memory:") if con is None else con
    name = quote_identifier(f"writing-{db.stem}")
    try:
        writer.execute(f"ATTACH {sql_text(str(db))} AS {name}")
        writer.execute(f"USE {name}")
        writer.execute("BEGIN TRANSACTION")
        try:
            yield writer
            writer.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(duckdb.Error):
                writer.execute("ROLLBACK")
            raise
        writer.execute("CHECKPOINT")
    except duckdb.Error as exc:
        raise _Rebuild from exc
    finally:
        with contextlib.suppress(duckdb.Error):
            if not own:
                writer.execute(f"USE {quote_identifier(before)}")
            writer.execute(f"DETACH DATABASE IF EXISTS {name}")
        if own:
            writer.close()


def _update_copy(root: Path, out: _Tables, state: CachedState, files: dict[str, FileStat], inputs: _Inputs,
                 code: str) -> str:
    """The update, written through ``out`` into a copy of the previous database."""
    cached = state.files
    changed = [rel for rel, stat in files.items() if (was := cached.get(rel)) is None or was.sha256 != stat.sha256]
    removed = [rel for rel in cached if rel not in files]
    if any(rel.split("/", 1)[0] != BENCHMARK_FOLDER for rel in (*changed, *removed)):
        raise _Rebuild
    gone = [state.loaded[rel][:2] for rel in (*changed, *removed) if rel in cached]  # (id, kind) as cached
    parsed = Ledger(root=root)
    listing = Listing(files, state.loaded, {rel: load_entry(root, rel, files[rel], parsed) for rel in changed})
    if any(kind not in (None, "benchmark") for _, kind in gone) or any(
            e.kind not in (None, "benchmark") for e in listing.fresh.values()):
        raise _Rebuild  # a record of another kind in benchmarks/: what the other records read changed
    if _duplicates([row[0] for row in state.loaded.values()]) or _duplicates(listing.ids()):
        raise _Rebuild
    dirty = sorted({rid for rid, _ in gone if rid} | set(parsed.records))
    kinds_same = {(rid, kind) for rid, kind in gone if rid} == {
        (e.record_id, e.kind) for e in listing.fresh.values() if e.record_id}
    context = _context(root, listing, out)
    for record_id, record in parsed.records.items():
        context.add(parsed.paths[record_id], record)
    waivers_same = bool(inputs.hashed) and inputs.hashed == state.meta["hashed_digests"]
    misplaced = json.loads(state.meta["misplaced"])
    report = _apply(out, root, listing, parsed, context, dirty, misplaced, waivers_same, kinds_same)
    _replace_files(out, listing, cached, changed, removed)
    out.con.execute("DELETE FROM _cache_meta")
    out.insert("_cache_meta", META_COLUMNS, _meta_rows(root, code, report, inputs, listing.stats(), misplaced))
    return f"updated {len(changed) + len(removed)} of {len(files)} files"


def _replace_files(out: _Tables, listing: Listing, cached: dict[str, FileStat], changed: list[str],
                   removed: list[str]) -> None:
    """Bring ``_cache_files`` to the scan's stats: the rows of changed, removed and re-stat-ed files replaced,
    except those whose only change is that they are no longer racy (every file written in the seconds before a
    build, thousands after a checkout or an import): one ``UPDATE`` of their flag, not a row each."""
    rewritten = set(changed)
    cleared: list[str] = []
    touched = [*changed, *removed]
    for rel, stat in listing.files.items():
        was = cached.get(rel)
        if was is None or stat == was or rel in rewritten:
            continue
        (cleared if was.racy and not stat.racy and stat == was._replace(racy=False) else touched).append(rel)
    if cleared:
        among, params = _among("path", cleared)
        out.con.execute(f"UPDATE _cache_files SET racy = false WHERE {among}", params)
    touched.sort()
    out.replace("_cache_files", "path", touched, listing.rows(touched), FILE_COLUMNS)


def _apply(out: _Tables, root: Path, listing: Listing, parsed: Ledger, context: Ledger, dirty: list[str],
           misplaced: list[str], waivers_same: bool, kinds_same: bool) -> AuditReport:
    """Replace the rows, findings and facts of the ``dirty`` record ids; recompute the combined findings.

    ``misplaced``: the files in sub-folders (unchanged: a change there rebuilds); ``waivers_same``: the waivers
    are those the cache was built with (else every finding is waived again); ``kinds_same``: every record id
    has the kind it had. The ``split`` findings are those cached when the facts of the ``dirty`` ids are
    unchanged too (they are a function of every record's facts and kinds), else made from every record's."""
    out.find_holding({**RECORD_KEYS, "t_efficiency": "record_id", "_cache_findings": "record",
                      "_cache_facts": "record"}, dirty)
    for name, (columns, producer) in TABLES.items():
        if name in RECORD_KEYS:
            out.replace(name, RECORD_KEYS[name], dirty, producer(parsed), columns)
    inputs = CeilingInputs(context)
    out.replace("t_efficiency", "record_id", dirty,
                benchmark_efficiency(parsed.typed("benchmark", Benchmark), inputs), EFFICIENCY_COLUMNS)
    ids = set(parsed.records)
    ctx = checking.wanted_context(context, ids)  # (the other records' checks: their findings are cached)
    out.replace("_cache_findings", "record", dirty, local_rows(checking.record_findings(context, ids, ctx=ctx)),
                LOCAL_COLUMNS)
    fresh = list(fact_rows(checking.record_facts(context, ids, ctx=ctx)))
    among, params = _among("record", dirty)
    cached = out.con.execute(f"SELECT check_name, record, facts FROM _cache_facts WHERE {among}", params).fetchall()
    facts_same = sorted(cached) == sorted((r["check_name"], r["record"], r["facts"]) for r in fresh)
    out.replace("_cache_facts", "record", dirty, fresh, FACT_COLUMNS)
    kinds = listing.kinds()
    keep_split = kinds_same and facts_same
    cached_findings = "SELECT true AS run, record, code, severity, field, message FROM _cache_run_findings"
    if keep_split:
        cached_findings += " UNION ALL SELECT false, record, code, severity, field, message FROM _cache_split"
    runs: list[Finding] = []
    split: list[Finding] = []
    for is_run, record, code, severity, where, message in out.con.execute(cached_findings).fetchall():
        (runs if is_run else split).append(Finding(code, severity, record, where, message))
    if not keep_split:
        split = checking.split_findings(_read_facts(out.con), kinds)
        out.con.execute("DELETE FROM _cache_split")
        out.insert("_cache_split", LOCAL_COLUMNS, local_rows(by_record(split)))
    skeleton = Ledger(root=root, errors=[*listing.errors(root),
                                         *misplaced_file_errors(root, [root / rel for rel in misplaced])])
    computed = [*runs, *split, *checking.file_findings(skeleton)]
    return _write_findings(out, root, computed, len(kinds) + len(skeleton.errors),
                           set(dirty) if waivers_same else None)


def _write_findings(out: _Tables, root: Path, computed: list[Finding], records_checked: int,
                    dirty: set[str] | None) -> AuditReport:
    """Fill ``t_findings``: the cached ``record``-check findings no waiver names, as they are, and the rest
    (``computed``, and the ``record``-check findings a waiver names) through the waivers (audit.waivers).

    The rest is kept in ``_cache_combined``. ``dirty``: only the findings about these records and those the
    rest is or was about are replaced (the other rows are cached findings the same waivers left alone); None:
    all. Returns the report of the rest (with ``records_checked``)."""
    con = out.con
    waivers = checking.load_waivers(root)
    keys = sorted(checking.waiver_keys(waivers))
    waivable = ("EXISTS (SELECT 1 FROM (SELECT unnest(?::VARCHAR[]) AS code, unnest(?::VARCHAR[]) AS record) w "
                "WHERE w.code = f.code AND w.record = f.record)")
    params = [[k[0] for k in keys], [k[1] for k in keys]]
    local = [Finding(code, severity, record, field, message) for record, code, severity, field, message in
             con.execute(f"SELECT record, code, severity, field, message FROM _cache_findings f WHERE {waivable}",
                         params).fetchall()]
    report = checking.finish(root, [*local, *computed], records_checked, waivers)
    scope, scope_params = "", list[Any]()
    if dirty is None:
        con.execute("DELETE FROM t_findings")
    else:
        was = {str(r) for (r,) in con.execute("SELECT DISTINCT record FROM _cache_combined").fetchall()}
        reach = sorted(dirty | was | {f.record for f in report.findings})
        among, scope_params = _among("record", reach)
        con.execute(f"DELETE FROM t_findings WHERE {among}", scope_params)
        scope = f"{among} AND "  # (the others: as cached)
    con.execute("INSERT INTO t_findings SELECT code, severity, record, field, message, false, NULL "
                f"FROM _cache_findings f WHERE {scope}NOT {waivable}", [*scope_params, *params])
    rows = [f.as_row() for f in report.findings]
    out.insert("t_findings", FINDING_COLUMNS, rows)
    con.execute("DELETE FROM _cache_combined")
    out.insert("_cache_combined", FINDING_COLUMNS, rows)
    return report


def _read_facts(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, Any]]:
    """Every record's facts, by ``split`` check then record id (one JSON text per check, made by DuckDB)."""
    rows = con.execute("SELECT check_name, '{' || string_agg(to_json(record)::VARCHAR || ':' || facts, ',') || '}' "
                       "FROM _cache_facts GROUP BY check_name").fetchall()
    return {str(name): json.loads(text) for name, text in rows}


def _context(root: Path, listing: Listing, out: _Tables) -> Ledger:
    """The non-benchmark records (wherever they lie: a model record in benchmarks/ is read by the benchmarks
    that name it, as in a fresh build): as the cache keeps them parsed when they are the files listed
    (``contextcache.py``), else parsed from bytes that must still hash as cached (and then kept)."""
    files = listing.context_files()
    digest = context_digest(files)
    ledger = Ledger(root=root)
    kept = kept_context(out.con, digest)
    if kept is not None and [rel for rel, _ in kept] == [rel for rel, _ in files]:
        for rel, record in kept:
            ledger.add(root / rel, record)
        return ledger
    parsed: list[tuple[str, Record]] = []
    for rel, sha in files:
        path = root / rel
        try:
            data = path.read_bytes()
        except OSError:
            raise _Rebuild from None  # gone since the scan (a rebuild reports what it cannot read)
        if sha256_bytes(data) != sha:
            raise _Rebuild  # changed since the scan
        parsed.append((rel, load_record_bytes(path, data)))
        ledger.add(path, parsed[-1][1])
    keep_context(out.con, digest, parsed)
    return ledger


def _duplicates(ids: Iterable[str | None]) -> bool:
    listed = [rid for rid in ids if rid]
    return len(listed) != len(set(listed))


def _meta_rows(root: Path, code: str, report: AuditReport, inputs: _Inputs, stats: Iterable[FileStat],
               misplaced: list[str]) -> list[Row]:
    """The cache's metadata (``stats``: the record files', in order); a hashed file that changed while it was
    built is recorded as stale ('').

    The other files' digest is recorded as taken before anything was read: it is '' when one of them was racy
    then, and any later change to one moves its ctime past what the digest holds (it was not racy), so the
    next command sees the change. Walking them again here (every file of the ledger) would find nothing more."""
    hashed_after = json.dumps([file_digest(root / name) for name in HASHED_FILES])
    meta = {"format": CACHE_FORMAT, "version": __version__, "code": code, "root": str(root),
            "folders": json.dumps(sorted(FOLDER_KINDS)), "hashed_files": json.dumps(list(HASHED_FILES)),
            "hashed_digests": inputs.hashed if hashed_after == inputs.hashed else "",
            "others": inputs.others,
            "records_checked": str(report.records_checked), "misplaced": json.dumps(misplaced),
            "stat_digest": manifest_digest(stats)}
    assert set(meta) == set(META_KEYS)
    return [{"key": k, "value": v} for k, v in meta.items()]


__all__ = ["refresh"]
