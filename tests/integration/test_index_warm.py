"""The warm path of the cached index: what a command loads when nothing changed, and the rule by which a file's
stat vouches for its bytes (``benchledger/catalog/scan.py``)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import duckdb
import pytest

from benchledger.catalog import refresh
from benchledger.catalog.cache import CACHE_DIR, STAT_DIGEST, STATS_SUFFIX, current_db, open_index
from benchledger.catalog.entries import load_entry
from benchledger.catalog.scan import UNHASHED, current_stats, scan_files, sha256_bytes
from benchledger.cli.render import plain_table
from benchledger.ledger.index import Columns
from benchledger.ledger.paths import FOLDER_KINDS
from benchledger.ledger.rows import Row
from benchledger.ledger.store import Ledger

from ledger_builder import build_mini_ledger

LATER_NS = 60 * 10**9
"""A scan clock this far ahead of the files' times: none of them is racy (``scan.RACY_NS`` is 2 s)."""
NOT_ON_THE_WARM_PATH = ("benchledger.audit", "benchledger.perfmodel", "benchledger.schema", "benchledger.site",
                        "benchledger.catalog.refresh", "benchledger.catalog.build", "benchledger.catalog.cold",
                        "benchledger.ledger.store", "benchledger.ledger.io", "benchledger.cli.bench",
                        "benchledger.cli.model", "benchledger.cli.site", "benchledger.cli.sweep",
                        "benchledger.cli.imports", "benchledger.cli.outcomes", "benchledger.cli.show",
                        "yaml", "jinja2", "markdown_it", "rich", "httpx", "numpy")
"""Neither the audit, the physics model, the schema (pydantic models), the record reader nor other commands'
modules; pydantic itself loads only where typer (0.29+) builds its parameter adapters (``first_importers``)."""
DUCKDB_PACKAGE = ("duckdb",) if importlib.util.find_spec("_duckdb") is not None else ()
"""DuckDB's Python package around its engine (``ledger/duckdb_engine.py``): ~0.1 s of every command's start, not
imported where the engine is its own module (DuckDB 2)."""


def later() -> int:
    return time.time_ns() + LATER_NS


def meta(root: Path) -> dict[str, str]:
    con = duckdb.connect(str(current_db(root)), read_only=True)
    try:
        return dict(con.execute("SELECT key, value FROM _cache_meta").fetchall())
    finally:
        con.close()


def warm_cli(tmp_path: Path, *args: str) -> tuple[str, list[str], list[str], dict[str, str]]:
    """Run ``benchledger ARGS`` in a fresh process: its stdout, the modules it imported, every file that Python
    opened (the ``open`` audit event; DuckDB's own reads of the cache are not Python's) and, for pydantic, the
    module whose import first asked for it."""
    report = tmp_path / "loaded.json"
    code = ("import atexit, json, sys\n"
            "opened, first = [], {}\n"
            "sys.addaudithook(lambda event, args: opened.append(str(args[0])) if event == 'open' else None)\n"
            "class FirstImporter:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'pydantic' and name not in first:\n"
            "            frame = sys._getframe(1)\n"
            "            while frame.f_globals.get('__name__', '').startswith(('importlib', '_frozen')):\n"
            "                frame = frame.f_back\n"
            "            first[name] = frame.f_globals.get('__name__', '')\n"
            "sys.meta_path.insert(0, FirstImporter())\n"
            f"atexit.register(lambda: open({str(report)!r}, 'w').write(json.dumps([sorted(sys.modules), opened, "
            "first])))\n"
            f"sys.argv = ['benchledger', *{list(args)!r}]\n"
            "from benchledger.cli import main\n"
            "main()\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        env.pop(name, None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env,
                         check=False)
    assert out.returncode == 0, out.stderr
    modules, opened, first = json.loads(report.read_text(encoding="utf-8"))
    return out.stdout, modules, opened, first


def record_files_read(root: Path, opened: list[str]) -> list[str]:
    """The files of the ledger opened (not its folders, which are opened to list them: ``scan.current_stats``)."""
    return [p for p in opened if p.startswith(str(root)) and CACHE_DIR not in p and Path(p).is_file()]


def test_a_warm_query_loads_neither_records_nor_the_audit(tmp_path: Path) -> None:
    root = build_mini_ledger(tmp_path / "ledger")
    open_index(root, clock=later).close()
    db = current_db(root)
    sql = "select count(*) as n, 0.5::double as half from benchmarks"
    for output, expected in (("csv", "n,half\n1,0.5\n"), ("table", plain_table(["n", "half"], [[1, 0.5]]))):
        out, loaded, opened, first = warm_cli(tmp_path, "query", sql, "-f", output, "--ledger", str(root))
        assert out == expected
        assert current_db(root) == db  # answered from the cache, not rebuilt
        assert "benchledger.catalog.cache" in loaded
        assert [m for m in loaded if m.startswith((*NOT_ON_THE_WARM_PATH, *DUCKDB_PACKAGE))] == [], output
        # (the cache's code digest looks pydantic up without importing it: only an import counts)
        assert "pydantic" not in loaded or str(first.get("pydantic")).startswith("typer"), first
        assert record_files_read(root, opened) == []


NOT_ON_THE_UPDATE_PATH = ("benchledger.perfmodel.predict", "benchledger.perfmodel.roofline", "benchledger.perfmodel.specdec",
                          "benchledger.perfmodel.inputs", "benchledger.engines", "benchledger.catalog.cold",
                          "benchledger.site", "jinja2", "markdown_it", "httpx", "numpy")
"""An update of a few benchmarks computes their ceilings (``perfmodel.ceiling``), not predictions."""


def test_an_update_of_one_benchmark_loads_no_prediction_model_and_reads_only_its_file(tmp_path: Path) -> None:
    root = build_mini_ledger(tmp_path / "ledger")
    open_index(root, clock=later).close()
    db = current_db(root)
    bench = root / "benchmarks" / "test-bench.md"
    bench.write_text(bench.read_text(encoding="utf-8") + "\nEdited.\n", encoding="utf-8")
    out, loaded, opened, _ = warm_cli(tmp_path, "query", "select count(*) as n from benchmarks", "-f", "csv",
                                      "--ledger", str(root))
    assert out == "n\n1\n"
    assert current_db(root) != db  # (updated)
    assert "benchledger.catalog.refresh" in loaded and "benchledger.perfmodel.ceiling" in loaded
    assert [m for m in loaded if m.startswith((*NOT_ON_THE_UPDATE_PATH, *DUCKDB_PACKAGE))] == []
    assert set(record_files_read(root, opened)) == {str(bench)}  # (hashed by the scan, then parsed)


def test_a_build_with_racy_files_is_vouched_for_once_they_are_hashed(tmp_path: Path) -> None:
    """Files written just before the build are hashed by the next command; from then on their stats vouch
    for them (``<db>.stats``), and no later command reads a record file."""
    root = build_mini_ledger(tmp_path / "ledger")
    open_index(root).close()  # the clock of the writes: every file is racy
    db = current_db(root)
    assert db is not None and meta(root)["stat_digest"] == ""
    assert open_index(root, clock=later).status == "current"  # hashed, found equal
    stats = Path(f"{db}{STATS_SUFFIX}")
    assert stats.read_text(encoding="ascii").strip() == current_stats(root, json.loads(meta(root)["folders"]))[0]
    out, _loaded, opened, _first = warm_cli(tmp_path, "query", "select count(*) as n from benchmarks", "-f",
                                            "csv", "--ledger", str(root))
    assert out == "n\n1\n" and current_db(root) == db
    assert record_files_read(root, opened) == []


def file_rows(root: Path) -> list[tuple[object, ...]]:
    con = duckdb.connect(str(current_db(root)), read_only=True)
    try:
        return sorted(con.execute("SELECT * FROM _cache_files").fetchall())
    finally:
        con.close()


def test_an_update_after_a_racy_build_writes_only_the_changed_files_rows(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The files that were racy at the build and are untouched since only lose that flag (one ``UPDATE``): the
    update writes the row of the one changed file, not one per file (``refresh._replace_files``), and the
    file rows are then those a rebuild at the same clock writes."""
    root = build_mini_ledger(tmp_path / "ledger")
    open_index(root).close()  # the clock of the writes: every file is racy
    assert all(row[6] for row in file_rows(root))
    path = next((root / "benchmarks").glob("*.md"))
    path.write_text(path.read_text(encoding="utf-8").replace("title: ", "title: Z", 1), encoding="utf-8")
    written: dict[str, int] = {}
    insert = refresh._Tables.insert

    def counting(self: refresh._Tables, table: str, columns: Columns, rows: Iterable[Row]) -> None:
        listed = list(rows)
        written[table] = written.get(table, 0) + len(listed)
        insert(self, table, columns, listed)

    monkeypatch.setattr(refresh._Tables, "insert", counting)
    index = open_index(root, clock=later)
    assert index.status.startswith("updated 1 of")
    index.close()
    assert written["_cache_files"] == 1
    updated = file_rows(root)
    assert not any(row[6] for row in updated)
    assert open_index(root, rebuild=True, clock=later).status.startswith("rebuilt")
    assert updated == file_rows(root)


def test_a_vouched_stat_is_one_of_the_files_as_they_are_now(tmp_path: Path) -> None:
    """A touch that keeps every byte is hashed once and vouched for; an edit after it is still seen; a
    ``.stats`` file that is not a digest is ignored; the next database's ``.stats`` replaces the old one."""
    root = build_mini_ledger(tmp_path / "ledger")
    open_index(root, clock=later).close()
    db = current_db(root)
    path = next((root / "benchmarks").glob("*.md"))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    assert open_index(root, clock=later).status == "current"
    assert Path(f"{db}{STATS_SUFFIX}").is_file()
    Path(f"{db}{STATS_SUFFIX}").write_text("not a digest\n", encoding="ascii")
    assert open_index(root, clock=later).status == "current"  # scanned again, and vouched again
    assert STAT_DIGEST.fullmatch(Path(f"{db}{STATS_SUFFIX}").read_text(encoding="ascii").strip())
    path.write_text(path.read_text(encoding="utf-8").replace("title: ", "title: Y", 1), encoding="utf-8")
    index = open_index(root, clock=later)
    try:
        assert index.status.startswith("updated 1 of")
        assert str(index.con.execute("SELECT title FROM benchmarks").fetchone()[0]).startswith("Y")
    finally:
        index.close()
    assert not Path(f"{db}{STATS_SUFFIX}").exists()  # went with its database


def test_an_edit_that_keeps_size_and_mtime_is_seen(tmp_path: Path) -> None:
    root = build_mini_ledger(tmp_path / "ledger")
    assert open_index(root, clock=later).status.startswith("rebuilt")
    assert meta(root)["stat_digest"] != ""  # no file racy: stats alone vouch for the files next time
    assert open_index(root, clock=later).status == "current"
    path = next((root / "benchmarks").glob("*.md"))
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    edited = text.replace("title: ", "title: X", 1)[: len(text)]  # same size: the last character gives way
    assert edited != text and len(edited.encode()) == before.st_size
    path.write_text(edited, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    index = open_index(root, clock=later)
    try:
        assert index.status.startswith("updated 1 of")
        title = index.con.execute("SELECT title FROM benchmarks").fetchone()
        assert title is not None and str(title[0]).startswith("X")
    finally:
        index.close()


def test_files_written_just_before_the_scan_are_hashed_again(tmp_path: Path) -> None:
    root = build_mini_ledger(tmp_path / "ledger")
    open_index(root).close()  # the clock of the writes: every file is racy
    assert meta(root)["stat_digest"] == ""
    assert open_index(root, clock=later).status == "current"  # hashed, found equal


def test_a_run_file_written_just_before_the_scan_does_not_vouch_for_itself(tmp_path: Path) -> None:
    root = build_mini_ledger(tmp_path / "ledger")
    open_index(root, clock=later).close()
    (root / "runs").mkdir(exist_ok=True)
    (root / "runs" / "data.jsonl").write_text("1\n", encoding="utf-8")
    open_index(root).close()  # rebuilt, with data.jsonl racy: a same-tick rewrite would keep its stat
    assert meta(root)["others"] == ""
    assert open_index(root, clock=later).status.startswith("rebuilt")
    assert meta(root)["others"] != ""
    assert open_index(root, clock=later).status == "current"


def test_a_file_rewritten_between_the_scan_and_its_read_is_racy_hashed_or_not(tmp_path: Path) -> None:
    """A build from scratch scans without reading (``hashed=False``) and hashes the bytes it parses; a file
    rewritten after the scan then has another stat, so its entry is racy (its stat vouches for nothing), as a
    hashed scan finds by the hash. An untouched file is not racy either way."""
    root = build_mini_ledger(tmp_path / "ledger")
    started = later()
    for hashed in (False, True):
        files = scan_files(root, sorted(FOLDER_KINDS), {}, started, hashed=hashed)
        rel = next(r for r in files if r.startswith("benchmarks/"))
        untouched = next(r for r in files if not r.startswith("benchmarks/"))
        assert (files[rel].sha256 == UNHASHED) is not hashed
        path = root / rel
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("title: ", "title: Z", 1), encoding="utf-8")
        ledger = Ledger(root=root)
        entry = load_entry(root, rel, files[rel], ledger)
        assert entry.stat.racy and entry.stat.sha256 == sha256_bytes(path.read_bytes())
        assert str(ledger.records[entry.record_id].title).startswith("Z")  # type: ignore[index, attr-defined]
        kept = load_entry(root, untouched, files[untouched], ledger)
        assert not kept.stat.racy and kept.stat.sha256 == sha256_bytes((root / untouched).read_bytes())
        path.write_text(text, encoding="utf-8")
