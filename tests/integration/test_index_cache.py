"""The cached index equals a fresh build, byte for byte in ``export``, after any sequence of edits, additions,
deletions and renames; a corrupt or stale cache is rebuilt; concurrent commands leave a good cache."""

from __future__ import annotations

import fcntl
import functools
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchledger.audit import run_audit
from benchledger.catalog.build import build_catalog
from benchledger.catalog.cache import CACHE_DIR, POINTER, current_db, open_index
from benchledger.catalog.scan import RACY_NS, current_stats, sha256_bytes
from benchledger.ledger import Ledger, dump_record, write_record
from benchledger.ledger.export import export_views
from benchledger.ledger.paths import FOLDER_KINDS
from benchledger.schema import RECORD_ADAPTER

from ledger_builder import benchmark, build_mini_ledger, physics_arm, physics_benchmark, source
from ledger_builder import write_physics_reference as write_reference


def make_ledger(root: Path) -> Path:
    """The mini ledger plus real physics reference data and two benchmarks with ceilings."""
    build_mini_ledger(root)
    write_reference(root)
    write_record(root, physics_benchmark("phys-a", [physics_arm("c1", 10.0, 1), physics_arm("c4", 35.0, 4)]))
    write_record(root, physics_benchmark("phys-b", [physics_arm("c1", 1e6, 1)]))
    return root


def exports(con: Any, out: Path) -> dict[str, bytes]:
    files: dict[str, bytes] = {}
    for fmt in ("csv", "json"):
        for path in export_views(con, out / fmt, fmt):  # type: ignore[arg-type]
            files[f"{fmt}/{path.name}"] = path.read_bytes()
    return files


def assert_cache_equals_fresh(root: Path, scratch: Path, clock: Callable[[], int] = time.time_ns) -> str:
    """Export the cached index and a fresh build of the same files; they must be identical. Returns the status.
    The cache's file rows must be the files as they are (``assert_file_rows_current``)."""
    started: list[int] = []
    index = open_index(root, clock=lambda: started.append(clock()) or started[-1])
    try:
        cached, report = exports(index.con, scratch / "cached"), index.report().to_dict()
        status = index.status
    finally:
        index.close()
    if status != "current":
        assert_file_rows_current(root, started[0])
    ledger = Ledger.load(root)
    fresh_report = run_audit(ledger)
    fresh_con = build_catalog(ledger, findings=[f.as_row() for f in fresh_report.findings])
    fresh = exports(fresh_con, scratch / "fresh")
    fresh_con.close()
    assert sorted(cached) == sorted(fresh)
    for name in fresh:
        assert cached[name] == fresh[name], f"{name} differs after: {status}"
    assert report == fresh_report.to_dict()
    return status


def assert_file_rows_current(root: Path, started: int) -> None:
    """Every record file has its ``_cache_files`` row: its hash and stat as they are now, and racy when it was
    written within ``scan.RACY_NS`` of ``started`` (the scan's clock); no row of a file that is gone."""
    con = duckdb.connect(str(current_db(root)), read_only=True)
    try:
        rows = {r[0]: r[1:7] for r in con.execute(
            "SELECT path, sha256, size, mtime_ns, ctime_ns, ino, racy FROM _cache_files").fetchall()}
    finally:
        con.close()
    _, listed = current_stats(root, sorted(FOLDER_KINDS))
    assert sorted(rows) == sorted(rel for rel, *_ in listed)
    for rel, size, mtime, ctime, ino in listed:
        sha, *stat, racy = rows[rel]
        assert (sha, *stat) == (sha256_bytes((root / rel).read_bytes()), size, mtime, ctime, ino), rel
        assert racy or max(mtime, ctime) < started - RACY_NS, rel


def _write(root: Path, data: dict[str, Any]) -> None:
    write_record(root, RECORD_ADAPTER.validate_python(data))


def _replace_waivers(root: Path) -> Path:
    """``waivers.yaml``, removed (a file or a folder): the path to write it anew."""
    path = root / "waivers.yaml"
    if path.is_dir():
        path.rmdir()
    path.unlink(missing_ok=True)
    return path


def apply(root: Path, op: str, target: str, other: str, value: float) -> None:
    """One edit of the kind people make to a ledger (some leave it broken on purpose)."""
    bench = root / "benchmarks"
    path, other_path = bench / f"{target}.md", bench / f"{other}.md"
    if op == "write":  # edit an existing benchmark, or add a new one
        data = benchmark(target)
        data["arms"][0]["note"] = f"edited {value}"
        _write(root, data)
    elif op == "physics":
        write_record(root, physics_benchmark(target, [physics_arm("c1", value, 1), physics_arm("c2", value, 2)]))
    elif op == "duplicate":  # the same measurement under another id
        _write(root, benchmark(target))
        _write(root, benchmark(other))
    elif op == "contest":
        data = benchmark(target)
        data["arms"][0]["note"] = f"contests {other}"
        _write(root, {**data, "status": "contested", "contests": [other]})
    elif op == "break":
        path.write_text(f"---\nid: {target}\nkind: benchmark\ntitle: [unclosed\n---\n", encoding="utf-8")
    elif op == "delete":
        path.unlink(missing_ok=True)
    elif op == "rename" and path.exists():
        path.rename(other_path)  # the id no longer matches the file name
    elif op == "misplaced":
        (bench / f"{target}.md").write_text((root / "models" / "test-model.md").read_text(encoding="utf-8"),
                                            encoding="utf-8")
    elif op == "model-in-benchmarks":  # a new model record in the wrong folder, named by other benchmarks
        model = (root / "models" / "test-model.md").read_text(encoding="utf-8")
        path.write_text(model.replace("id: test-model", f"id: {target}"), encoding="utf-8")
        data = benchmark(other)
        data["subject"]["model"] = target
        _write(root, data)
    elif op == "same-id-elsewhere":  # a model record with a benchmark's id
        model = (root / "models" / "test-model.md").read_text(encoding="utf-8")
        (root / "models" / f"{target}.md").write_text(model.replace("id: test-model", f"id: {target}"),
                                                      encoding="utf-8")
    elif op == "source-in-benchmarks":  # a new source record in the wrong folder, quoted by another benchmark
        path.write_text(dump_record(RECORD_ADAPTER.validate_python(source(target))), encoding="utf-8")
        _write(root, {**benchmark(other), "sources": [target]})
    elif op == "reid" and path.exists():  # the file keeps its name, the record inside takes another id
        data = benchmark(other)
        data["arms"][0]["note"] = f"re-id {value}"
        path.write_text(dump_record(RECORD_ADAPTER.validate_python(data)), encoding="utf-8")
    elif op == "touch" and path.exists():  # a new mtime, the same bytes (a checkout, ``touch``)
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - int(value * 1e9) - 1))
    elif op == "source":
        _write(root, {**source(), "title": f"A test source, retitled {value}"})
    elif op in ("waiver", "waive-record-check"):  # the second waives a ``record`` check's finding (cached per record)
        code = "references.dangling" if op == "waiver" else "identity.id-not-filename"
        waivers = [{"code": code, "record": target, "reason": "a test waiver with a reason", "date": "2026-11-30"}]
        _replace_waivers(root).write_text(json.dumps(waivers), encoding="utf-8")
    elif op == "waivers-folder":  # a folder where the waivers file is (an error finding, not a crash)
        _replace_waivers(root).mkdir()
    elif op == "waivers-not-utf8":
        _replace_waivers(root).write_bytes(b"- code: \xff\n")
    elif op == "run":
        (root / "runs").mkdir(exist_ok=True)
        (root / "runs" / f"{target}.jsonl").write_text(f"{value}\n", encoding="utf-8")
    elif op == "subfolder":  # a file in a sub-folder of benchmarks/: never loaded, always reported
        (bench / "sub").mkdir(exist_ok=True)
        (bench / "sub" / f"{target}.md").write_text(f"stray {value}\n", encoding="utf-8")
    elif op == "run-secret":  # a finding about a run folder, not a record
        (root / "runs" / target).mkdir(parents=True, exist_ok=True)
        (root / "runs" / target / "env.txt").write_text(f"HF_TOKEN=hf_{'x' * 34}{int(value)}\n", encoding="utf-8")


IDS = st.sampled_from(["test-bench", "phys-a", "phys-b", "new-one", "new-two"])
OPS = st.sampled_from(["settle", "settle", "write", "write", "physics", "duplicate", "contest", "break", "delete", "delete", "rename",
                       "misplaced", "model-in-benchmarks", "same-id-elsewhere", "source", "waiver", "run", "run-secret",
                       "subfolder", "source-in-benchmarks", "reid", "touch", "waive-record-check", "waivers-folder",
                       "waivers-not-utf8"])
STEPS = st.lists(st.tuples(OPS, IDS, IDS, st.floats(min_value=0.5, max_value=5e5, allow_nan=False)),
                 min_size=1, max_size=4)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=STEPS)
def test_the_cached_index_equals_a_fresh_build_after_any_edits(tmp_path_factory: pytest.TempPathFactory,
                                                              steps: list[tuple[str, str, str, float]]) -> None:
    base = tmp_path_factory.mktemp("cache")
    root = make_ledger(base / "ledger")
    assert assert_cache_equals_fresh(root, base / "s0").startswith("rebuilt")
    clock = time.time_ns
    for i, (op, target, other, value) in enumerate(steps, 1):
        if op == "settle":  # the clock stops past the racy window of every file written so far (not later ones)
            clock = functools.partial(int, time.time_ns() + RACY_NS + 1)
        apply(root, op, target, other, value)
        assert_cache_equals_fresh(root, base / f"s{i}", clock)


def test_a_record_of_another_kind_in_benchmarks_reaches_the_records_that_name_it(tmp_path: Path) -> None:
    """A model record written into benchmarks/ changes what the benchmarks naming it check (their ceilings)."""
    root = make_ledger(tmp_path / "ledger")
    data = benchmark("needs-foo")
    data["subject"]["model"] = "foo"
    _write(root, data)
    assert_cache_equals_fresh(root, tmp_path / "s0")
    model = (root / "models" / "test-model.md").read_text(encoding="utf-8")
    (root / "benchmarks" / "foo.md").write_text(model.replace("id: test-model", "id: foo"), encoding="utf-8")
    assert_cache_equals_fresh(root, tmp_path / "s1")
    (root / "benchmarks" / "foo.md").unlink()
    assert_cache_equals_fresh(root, tmp_path / "s2")


def test_only_changed_benchmark_files_are_reprocessed(tmp_path: Path) -> None:
    root = make_ledger(tmp_path / "ledger")
    assert open_index(root).status.startswith("rebuilt")
    assert open_index(root).status == "current"
    apply(root, "write", "test-bench", "", 7.0)
    apply(root, "write", "new-one", "", 8.0)
    apply(root, "delete", "phys-b", "", 0.0)
    files = len(list(root.glob("*/*.md")))
    assert assert_cache_equals_fresh(root, tmp_path / "a") == f"updated 3 of {files} files"
    assert open_index(root).status == "current"
    apply(root, "source", "", "", 3.0)  # a source can change any benchmark's findings: everything again
    assert assert_cache_equals_fresh(root, tmp_path / "b").startswith("rebuilt")


def test_an_update_keeps_the_findings_it_does_not_reach_and_redoes_the_rest(tmp_path: Path) -> None:
    """An update replaces the findings of the changed records and every combined finding (split checks, files,
    waived), keeps the rest; a changed ``waivers.yaml`` waives every finding again."""
    root = make_ledger(tmp_path / "ledger")
    later = lambda: time.time_ns() + 60 * 10**9  # noqa: E731 - no file is racy at this clock
    apply(root, "subfolder", "stray", "", 1.0)
    apply(root, "contest", "new-one", "test-bench", 1.0)  # warnings about new-one (a split check)
    open_index(root, clock=later).close()
    steps = [("write", "phys-a", 2.0), ("waiver", "new-one", 0.0), ("write", "new-one", 3.0),
             ("waiver", "test-bench", 0.0), ("delete", "new-one", 0.0), ("break", "phys-b", 0.0)]
    for i, (op, target, value) in enumerate(steps):
        apply(root, op, target, "test-bench", value)
        index = open_index(root, clock=later)
        status = index.status
        index.close()
        assert status.startswith("updated"), (op, status)
        assert assert_cache_equals_fresh(root, tmp_path / f"s{i}") == "current"
    index = open_index(root, clock=later)
    codes = {f.code for f in index.report().findings}
    index.close()
    assert {"files.in-subfolder", "schema.invalid", "waivers.unused"} <= codes


@pytest.mark.parametrize("op", ["waivers-folder", "waivers-not-utf8"])
def test_a_waivers_file_that_cannot_be_read_is_an_error_finding_and_a_change(tmp_path: Path, op: str) -> None:
    """The old code crashed a fresh build (``IsADirectoryError``, ``UnicodeDecodeError``) while the cache, which
    took a folder for no file, answered from before; now both report ``waivers.invalid`` and agree."""
    root = make_ledger(tmp_path / "ledger")
    apply(root, "waiver", "test-bench", "", 1.0)
    assert assert_cache_equals_fresh(root, tmp_path / "s0").startswith("rebuilt")
    apply(root, op, "", "", 0.0)
    assert assert_cache_equals_fresh(root, tmp_path / "s1").startswith("updated")
    index = open_index(root)
    try:
        invalid = [f for f in index.report().findings if f.code == "waivers.invalid"]
    finally:
        index.close()
    assert len(invalid) == 1 and invalid[0].severity == "error"
    apply(root, "waiver", "test-bench", "", 1.0)  # (and back)
    assert assert_cache_equals_fresh(root, tmp_path / "s2").startswith("updated")


def test_an_update_reads_no_run_file(tmp_path: Path) -> None:
    """``runs/`` changed would rebuild: an update keeps the run findings it has (here a token in a run file)."""
    root = make_ledger(tmp_path / "ledger")
    apply(root, "run-secret", "some-run", "", 1.0)
    later = lambda: time.time_ns() + 60 * 10**9  # noqa: E731 - no file is racy (written within 2 s) at this clock
    open_index(root, clock=later).close()
    opened: list[str] = []
    runs = str(root / "runs")

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and isinstance(args[0], str | Path) and str(args[0]).startswith(runs):
            opened.append(str(args[0]))  # (a folder opened to list it is left out below: no file read)

    sys.addaudithook(hook)  # (audit hooks stay for the process: this one only records opens under runs/)
    apply(root, "write", "test-bench", "", 9.0)
    index = open_index(root, clock=later)
    try:
        assert index.status.startswith("updated 1 of")
        codes = [f.code for f in index.report().findings if f.record == "some-run"]
    finally:
        index.close()
    runs = str(tmp_path / "elsewhere")  # the hook stops recording
    assert [p for p in opened if not Path(p).is_dir()] == []
    assert codes == ["secrets.suspected"]
    assert_cache_equals_fresh(root, tmp_path / "b")


@pytest.mark.parametrize("damage", [b"not a duckdb file", b""])
def test_a_corrupt_cache_is_rebuilt(tmp_path: Path, damage: bytes) -> None:
    root = make_ledger(tmp_path / "ledger")
    open_index(root).close()
    db = current_db(root)
    assert db is not None
    db.write_bytes(damage)
    assert assert_cache_equals_fresh(root, tmp_path / "s").startswith("rebuilt")


def test_a_cache_with_a_table_missing_is_rebuilt(tmp_path: Path) -> None:
    import duckdb

    root = make_ledger(tmp_path / "ledger")
    open_index(root).close()
    con = duckdb.connect(str(current_db(root)))
    con.execute("DROP TABLE _cache_files")
    con.close()
    assert assert_cache_equals_fresh(root, tmp_path / "s").startswith("rebuilt")


def test_a_cache_copied_with_its_ledger_is_not_trusted(tmp_path: Path) -> None:
    import shutil

    root = make_ledger(tmp_path / "ledger")
    open_index(root).close()
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    apply(copy, "write", "new-one", "", 1.0)
    assert assert_cache_equals_fresh(copy, tmp_path / "s").startswith("rebuilt")


def test_no_cache_builds_in_memory_and_writes_nothing(tmp_path: Path) -> None:
    root = make_ledger(tmp_path / "ledger")
    index = open_index(root, cache=False)
    assert index.status.startswith("built without cache")
    assert index.con.execute("SELECT count(*) FROM benchmarks").fetchone() == (3,)
    assert not (root / CACHE_DIR).exists()


def test_the_cache_folder_ignores_itself_in_git(tmp_path: Path) -> None:
    root = make_ledger(tmp_path / "ledger")
    open_index(root).close()
    assert (root / CACHE_DIR / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"


def test_an_abandoned_temporary_index_is_removed_and_a_live_one_kept(tmp_path: Path) -> None:
    root = make_ledger(tmp_path / "ledger")
    open_index(root).close()
    folder = root / CACHE_DIR
    dead_name, live_name = "index-" + "d" * 32 + ".duckdb", "index-" + "e" * 32 + ".duckdb"
    dead = [folder / dead_name, folder / f".{dead_name}.lock"]
    live = [folder / live_name, folder / f".{live_name}.lock"]
    for path in (*dead, *live):
        path.write_bytes(b"x")
    fd = os.open(live[1], os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # held as a running writer holds it
        apply(root, "write", "new-one", "", 1.0)
        open_index(root).close()
        assert [p.exists() for p in dead] == [False, False]
        assert [p.exists() for p in live] == [True, True]
    finally:
        os.close(fd)


def test_concurrent_commands_leave_a_cache_equal_to_a_fresh_build(tmp_path: Path) -> None:
    root = make_ledger(tmp_path / "ledger")
    open_index(root).close()
    for name in ("new-one", "new-two"):
        apply(root, "write", name, "", 2.0)
    code = ("import sys; from benchledger.catalog.cache import open_index; "
            "i = open_index(sys.argv[1]); print(i.con.execute('SELECT count(*) FROM benchmarks').fetchone()[0])")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [subprocess.Popen([sys.executable, "-c", code, str(root)], stdout=subprocess.PIPE, text=True, env=env)
             for _ in range(3)]
    outs = [p.communicate(timeout=300)[0].strip() for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0]
    assert outs == ["5", "5", "5"]
    assert assert_cache_equals_fresh(root, tmp_path / "s") == "current"
    folder = root / CACHE_DIR
    assert not list(folder.glob(".*.lock")) and not list(folder.glob(".*.pointer"))
    apply(root, "write", "new-one", "", 3.0)
    open_index(root).close()  # the next update removes what the others left (their writers are gone)
    assert sorted(p.name for p in folder.iterdir()) == sorted([".gitignore", POINTER, current_db(root).name])


KILLED_UPDATE = """
import os, sys
from pathlib import Path
from benchledger.catalog.cache import open_index

root, marker, suffix = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]

def hook(event, args):
    if event == "open" and str(args[0]).endswith(suffix) and not marker.exists():
        marker.write_text("at " + str(args[0]))
        os.read(0, 1)  # wait here for the SIGKILL (stdin stays open and empty)

sys.addaudithook(hook)
open_index(root)
"""


@pytest.mark.parametrize("at", ["rows-1.json", ".pointer"])
def test_an_update_killed_midway_leaves_the_old_index_and_the_next_command_a_current_one(tmp_path: Path,
                                                                                         at: str) -> None:
    """SIGKILL while an update has changed half its copy of the database (``rows-1.json``: its first rows go in),
    or after writing it and before pointing the cache at it (``.pointer``): the cache still names the old
    index, intact; the next command updates it, equal to a fresh build, and removes what the killed one left."""
    import signal

    import duckdb

    root = make_ledger(tmp_path / "ledger")
    index = open_index(root)
    old_exports = exports(index.con, tmp_path / "old")
    index.close()
    before = current_db(root)
    assert before is not None
    apply(root, "write", "test-bench", "", 4.0)
    apply(root, "physics", "phys-a", "", 3.0)
    marker = tmp_path / "reached"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.Popen([sys.executable, "-c", KILLED_UPDATE, str(root), str(marker), at],
                            stdin=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 300
        while not marker.exists():  # the child writes it at the point named, then blocks
            assert proc.poll() is None, "the update finished before reaching the point to kill it at"
            assert time.monotonic() < deadline, "the update never reached the point to kill it at"
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=60) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=60)
        assert proc.stdin is not None
        proc.stdin.close()
    assert current_db(root) == before
    left = sorted(p.name for p in (root / CACHE_DIR).iterdir())
    assert len(left) > 3  # the killed writer's database (and its lock) are still there
    old = duckdb.connect(str(before), read_only=True)
    try:  # the old index is whole and as it was
        assert exports(old, tmp_path / "after-kill") == old_exports
    finally:
        old.close()
    assert assert_cache_equals_fresh(root, tmp_path / "s").startswith("updated")
    assert sorted(p.name for p in (root / CACHE_DIR).iterdir()) == sorted([".gitignore", POINTER,
                                                                            current_db(root).name])


@pytest.mark.skipif(__import__("shutil").which("git") is None, reason="git is not installed")
def test_a_ledger_made_by_init_keeps_its_cache_out_of_git(tmp_path: Path) -> None:
    from benchledger.ledger.scaffold import init_ledger

    root = init_ledger(tmp_path / "mine")
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=60)
    (root / CACHE_DIR).mkdir()
    (root / CACHE_DIR / "index.duckdb").write_bytes(b"x")  # no .gitignore in the cache yet: the ledger's holds
    out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=root, capture_output=True,
                         text=True, check=True, timeout=60).stdout
    assert ".gitignore" in out and CACHE_DIR not in out


def test_every_registered_check_declares_what_it_reads() -> None:
    """A check without ``SCOPE`` is correct but makes every cached update a full rebuild: declare it."""
    from benchledger.audit.checks import CHECKS
    from benchledger.catalog.checking import scope_of

    assert [name for name, check in CHECKS if scope_of(check) == "ledger"] == []


def test_the_commands_answer_from_the_cache_and_see_every_change(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from benchledger.cli import app

    root = make_ledger(tmp_path / "ledger")
    runner = CliRunner()

    def cli(*args: str) -> str:
        result = runner.invoke(app, [*args, "--ledger", str(root)])
        assert result.exit_code in (0, 1), result.output
        return result.output

    count = "SELECT count(*) AS n FROM benchmarks"
    assert cli("query", count, "-f", "csv") == "n\n3\n"
    first_audit = cli("audit")
    assert cli("audit") == first_audit == cli("audit", "--full") == cli("audit", "--no-cache")
    apply(root, "write", "new-one", "", 1.0)
    assert cli("query", count, "-f", "csv") == "n\n4\n"
    assert "new-one" in cli("show", "new-one")
    apply(root, "delete", "new-one", "", 0.0)
    assert cli("query", count, "-f", "csv", "--no-cache") == cli("query", count, "-f", "csv") == "n\n3\n"
    gone = runner.invoke(app, ["show", "new-one", "--ledger", str(root)])  # keeps its index open (traceback)
    assert gone.exit_code == 2 and "no record with id 'new-one'" in gone.output
    apply(root, "break", "new-one", "", 0.0)
    broken = runner.invoke(app, ["show", "new-one", "--ledger", str(root)])
    assert broken.exit_code == 2 and "record 'new-one' does not load" in broken.output
    assert "invalid YAML" in broken.output and "new-one.md:5" in broken.output


def test_the_scan_sees_the_files_the_loader_reads_and_every_other_file(tmp_path: Path) -> None:
    from benchledger.catalog.scan import others_digest
    from benchledger.ledger.location import record_names
    from benchledger.ledger.paths import FOLDER_KINDS, iter_record_files

    root = make_ledger(tmp_path / "ledger")
    (root / "benchmarks" / "sub").mkdir()
    (root / "benchmarks" / ".hidden.md").write_text("x", encoding="utf-8")
    (root / "benchmarks" / "notes.txt").write_text("x", encoding="utf-8")
    assert iter_record_files(root) == [root / f / n for f, n in record_names(root, FOLDER_KINDS)]
    records = {p.relative_to(root).as_posix() for p in iter_record_files(root)}
    before = others_digest(root, set(), records)
    (root / "benchmarks" / "sub" / "x.md").write_text("x", encoding="utf-8")  # not a record file: seen here
    assert others_digest(root, set(), records) != before
    status = assert_cache_equals_fresh(root, tmp_path / "s")
    (root / "benchmarks" / "sub" / "y.md").write_text("y", encoding="utf-8")
    assert assert_cache_equals_fresh(root, tmp_path / "t").startswith("rebuilt") and status.startswith("rebuilt")


def test_a_renamed_model_record_in_benchmarks_reaches_the_records_that_name_it(tmp_path: Path) -> None:
    root = make_ledger(tmp_path / "ledger")
    assert_cache_equals_fresh(root, tmp_path / "s0")
    for i, step in enumerate([("model-in-benchmarks", "test-bench", "phys-a", 1.0),
                              ("rename", "phys-a", "phys-b", 1.0)], 1):
        apply(root, *step)
        assert_cache_equals_fresh(root, tmp_path / f"s{i}")
