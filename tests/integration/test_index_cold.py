"""The cold build in worker processes (``catalog/cold.py``, ``catalog/workers.py``) gives exactly what one
process gives, for any number of workers and after any edits (bad files included); a failing or dying worker
is reported, never waited for; Ctrl-C during a parallel build ends the command and every worker at once."""

from __future__ import annotations

import copy
import fcntl
import functools
import gc
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from test_index_cache import STEPS, apply, assert_cache_equals_fresh, make_ledger

from benchledger.audit.finding import Finding
from benchledger.catalog import checking
from benchledger.catalog.cache import open_index
from benchledger.catalog.cold import MIN_PARALLEL_FILES, ColdBuild, built_tables, cold_build, serial_build
from benchledger.catalog.loading import RowLoader
from benchledger.catalog.scan import scan_files
from benchledger.catalog.workers import Claims, ForkedCalls, RemoteTraceback
from benchledger.errors import LedgerError
from benchledger.ledger import dump_record
from benchledger.ledger.paths import FOLDER_KINDS
from benchledger.schema import RECORD_ADAPTER

from ledger_builder import benchmark

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="worker processes are forked on Linux only")


def built_by(root: Path, scratch: Path, jobs: int, started_ns: int) -> tuple[ColdBuild, dict[str, Any]]:
    """A cold build with ``jobs`` workers (no size threshold), and everything it holds as comparable data.

    ``started_ns`` is the scan's clock: builds compared must share it, else a file written just before is racy
    (``scan.RACY_NS``) for the first build and not for a second one that starts after a slow first one."""
    workdir = scratch / f"jobs-{jobs}"
    workdir.mkdir(parents=True)
    files = scan_files(root, sorted(FOLDER_KINDS), {}, started_ns)
    built = cold_build(root, files, workdir, jobs, min_parallel=1) if jobs > 1 else serial_build(root, files, workdir)
    rows = {name: sorted(json.dumps(row, sort_keys=True) for f in files_ if f.rows
                         for row in json.loads(f.path.read_text(encoding="utf-8")))
            for name, files_ in built.tables.items()}
    local = [Finding(row["code"], row["severity"], row["record"], row["field"], row["message"])
             for text in rows["_cache_findings"] for row in [json.loads(text)]]
    report = checking.finish(root, [*local, *built.runs, *built.split, *built.other], built.records_checked)
    return built, {
        "report": report.to_dict(), "rows": rows, "entries": list(built.entries.items()),
        "runs": sorted(built.runs, key=Finding.sort_key), "split": sorted(built.split, key=Finding.sort_key),
    }


def add_benchmarks(root: Path, count: int) -> None:
    template = RECORD_ADAPTER.validate_python(benchmark("synthetic"))
    for i in range(count):
        record = copy.deepcopy(template)
        record.id = f"synthetic-{i:05d}"
        record.workload.concurrency = i + 1  # type: ignore[union-attr]
        (root / "benchmarks" / f"{record.id}.md").write_text(dump_record(record), encoding="utf-8")


def test_workers_build_exactly_what_one_process_builds(tmp_path: Path) -> None:
    root = make_ledger(tmp_path / "ledger")
    add_benchmarks(root, 7)
    for op, target, other in [("duplicate", "new-one", "new-two"), ("contest", "phys-a", "test-bench"),
                              ("break", "phys-b", ""), ("run-secret", "r1", "")]:
        apply(root, op, target, other, 3.0)
    (root / "benchmarks" / "crlf.md").write_bytes(b"---\r\nid: crlf\r\n---\r\n")
    (root / "benchmarks" / "latin1.md").write_bytes("---\nid: caf\xe9\n---\n".encode("latin-1"))
    (root / "benchmarks" / "deeper").mkdir()
    (root / "benchmarks" / "deeper" / "x.md").write_text("---\nid: x\n---\n", encoding="utf-8")
    now = time.time_ns()
    one = built_by(root, tmp_path / "s", 1, now)[1]
    codes = {f["code"] for f in one["report"]["findings"]}
    assert {"duplicates.same-measurement", "contested.not-reciprocal", "schema.invalid", "files.encoding",
            "files.in-subfolder", "secrets.suspected"} <= codes
    for jobs in (2, 3):
        built, data = built_by(root, tmp_path / "s", jobs, now)
        assert built.workers == jobs  # the files really were split among workers
        assert data == one


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=STEPS)
def test_workers_equal_one_process_after_any_edits(tmp_path_factory: pytest.TempPathFactory,
                                                  steps: list[tuple[str, str, str, float]]) -> None:
    base = tmp_path_factory.mktemp("cold")
    root = make_ledger(base / "ledger")
    add_benchmarks(root, 3)
    for i, (op, target, other, value) in enumerate(steps):
        apply(root, op, target, other, value)
        now = time.time_ns()  # one clock for both builds: racy or not alike, however slow the first
        assert built_by(root, base / f"s{i}", 3, now)[1] == built_by(root, base / f"s{i}", 1, now)[1]


def loaded_by(root: Path, scratch: Path, jobs: int, started_ns: int) -> dict[str, list[str]]:
    """Every table's rows as a cold build with ``jobs`` workers loads them into its database (``RowLoader``:
    part by part, while the build goes on)."""
    workdir = scratch / f"load-{jobs}"
    workdir.mkdir(parents=True)
    files = scan_files(root, sorted(FOLDER_KINDS), {}, started_ns)
    rows = RowLoader(workdir / "index.duckdb", built_tables())
    try:
        if jobs > 1:
            cold_build(root, files, workdir, jobs, min_parallel=1, rows=rows)
        else:
            serial_build(root, files, workdir, rows)
        con = rows.connection()
        return {name: sorted(repr(row) for row in con.execute(f'SELECT * FROM "{name}"').fetchall())
                for name in built_tables()}
    finally:
        rows.close()


def test_the_rows_loaded_while_building_are_those_of_one_process(tmp_path: Path) -> None:
    """Loaded as each part is made, every table holds exactly the rows one process loads, each once: also when
    the parallel build gives way to one process (an id used twice), after loading its parts."""
    root = make_ledger(tmp_path / "ledger")
    add_benchmarks(root, 7)
    apply(root, "duplicate", "new-one", "new-two", 3.0)
    (root / "benchmarks" / "latin1.md").write_bytes("---\nid: caf\xe9\n---\n".encode("latin-1"))
    now = time.time_ns()
    one = loaded_by(root, tmp_path / "s", 1, now)
    assert len(one["t_arms"]) >= 14 and one["_cache_files"] and one["_cache_findings"] and one["_cache_facts"]
    for jobs in (2, 3):
        assert loaded_by(root, tmp_path / "s", jobs, now) == one
    apply(root, "same-id-elsewhere", "synthetic-00003", "", 1.0)  # a model with a benchmark's id: one process
    now = time.time_ns()
    assert loaded_by(root, tmp_path / "t", 3, now) == loaded_by(root, tmp_path / "t", 1, now)


def test_the_rows_are_loaded_in_the_same_order_by_any_number_of_workers(tmp_path: Path) -> None:
    """Not only the same rows: the same order, whichever process built which run (the runs are loaded in name
    order), so a query without ORDER BY answers alike after any cold build."""
    root = make_ledger(tmp_path / "ledger")
    add_benchmarks(root, 40)
    now = time.time_ns()
    orders = [in_order(root, tmp_path / "s", jobs, now) for jobs in (2, 3, 4)]
    assert len(orders[0]["t_arms"]) >= 80
    assert orders[1] == orders[0] and orders[2] == orders[0]


def test_each_process_normalises_a_source_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runs of a process share what they are checked against (a source's excerpt, normalised once: the
    bundled sources are ~5 MB of text), however many runs it builds."""
    from benchledger.audit import context

    root = make_ledger(tmp_path / "ledger")
    add_benchmarks(root, 40)
    seen: list[str] = []
    monkeypatch.setattr(context, "normalise_space", lambda text: seen.append(text) or " ".join(text.split()))
    workdir = tmp_path / "work"
    workdir.mkdir()
    built = cold_build(root, scan_files(root, sorted(FOLDER_KINDS), {}, time.time_ns()), workdir, 2, min_parallel=1)
    assert built.workers == 2 and seen  # (this process's count: the worker's is its own)
    assert len(seen) == len(set(seen))


def in_order(root: Path, scratch: Path, jobs: int, started_ns: int) -> dict[str, list[str]]:
    workdir = scratch / f"order-{jobs}"
    workdir.mkdir(parents=True)
    rows = RowLoader(workdir / "index.duckdb", built_tables())
    try:
        built = cold_build(root, scan_files(root, sorted(FOLDER_KINDS), {}, started_ns), workdir, jobs, min_parallel=1,
                           rows=rows)
        assert built.workers == jobs
        con = rows.connection()
        return {name: [repr(row) for row in con.execute(f'SELECT * FROM "{name}"').fetchall()]
                for name in built_tables()}
    finally:
        rows.close()


def _claim_all(claims: Claims) -> list[int]:
    return list(iter(claims.last, None))


def test_claims_hand_out_each_number_once_this_process_from_the_first(tmp_path: Path) -> None:
    with Claims(200, tmp_path / "claims.lock") as claims, ForkedCalls([functools.partial(_claim_all, claims)] * 3) \
            as forked:
        mine = list(iter(claims.first, None))
        theirs = [n for taken in forked.results() for n in taken]
    assert sorted(mine + theirs) == list(range(200))
    assert mine == list(range(len(mine)))  # a run from 0; the workers' numbers are the rest
    with Claims(0, tmp_path / "empty.lock") as none_left:
        assert none_left.first() is None and none_left.last() is None


def _hold_the_lock(claims: Claims, ready: Any) -> None:
    fcntl.lockf(claims._fd, fcntl.LOCK_EX)  # as a claim in progress, when its process is killed
    ready.send(True)
    signal.pause()


def test_a_child_killed_while_it_claims_leaves_the_claims_usable(tmp_path: Path) -> None:
    receiver, sender = multiprocessing.get_context("fork").Pipe(duplex=False)
    with Claims(3, tmp_path / "claims.lock") as claims, \
            ForkedCalls([functools.partial(_hold_the_lock, claims, sender)]) as forked:
        assert receiver.recv()  # the child holds the lock
        (pid,) = forked.pids
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(LedgerError, match="exited with status"):
            forked.result(0)  # (reaped: gone, with its lock)
        assert [claims.first(), claims.last(), claims.first(), claims.first()] == [0, 2, 1, None]


def test_a_cache_built_by_workers_equals_a_fresh_build(tmp_path: Path) -> None:
    """The command's own path: a ledger big enough for workers, its rows loaded while they run, the views and
    findings added after; every view exports as a fresh build's (with bad files and cross-record findings)."""
    root = make_ledger(tmp_path / "ledger")
    add_benchmarks(root, MIN_PARALLEL_FILES)
    for op, target, other in [("duplicate", "new-one", "new-two"), ("contest", "phys-a", "test-bench"),
                              ("break", "phys-b", "")]:
        apply(root, op, target, other, 3.0)
    index = open_index(root, jobs=2)
    try:
        assert index.status.endswith("by 2 workers"), index.status
    finally:
        index.close()
    assert assert_cache_equals_fresh(root, tmp_path / "s") == "current"


_SPY_ON_THE_FORK = """
import sys, time
from pathlib import Path
from pydantic import BaseModel
from benchledger.catalog import cold, workers
from benchledger.catalog.scan import scan_files
from benchledger.ledger.paths import FOLDER_KINDS

def deferred():
    pending, out = [BaseModel], []
    while pending:
        for cls in pending.pop().__subclasses__():
            pending.append(cls)
            if cls.__module__.startswith("benchledger.schema") and not cls.__pydantic_complete__:
                out.append(cls.__name__)
    return sorted(out)

seen = []
enter = workers.ForkedCalls.__enter__
def spy(self):
    seen.append(deferred())
    return enter(self)
workers.ForkedCalls.__enter__ = spy
root, work = Path(sys.argv[1]), Path(sys.argv[2])
work.mkdir()
built = cold.cold_build(root, scan_files(root, sorted(FOLDER_KINDS), {}, time.time_ns()), work, 2, min_parallel=1)
print(built.workers, seen)
"""


def test_the_schema_models_are_built_before_the_workers_are_forked(tmp_path: Path) -> None:
    """Deferred (``defer_build``), each model's validator and serializer would be built again in every worker;
    the parent builds them before it forks (``schema.build_models``). A fresh interpreter: nothing built yet."""
    root = make_ledger(tmp_path / "ledger")
    add_benchmarks(root, 4)
    out = subprocess.run([sys.executable, "-c", _SPY_ON_THE_FORK, str(root), str(tmp_path / "work")],
                         capture_output=True, text=True, timeout=600, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "2 [[]]"


def test_an_id_used_twice_is_built_in_one_process(tmp_path: Path) -> None:
    root = make_ledger(tmp_path / "ledger")
    add_benchmarks(root, 4)
    apply(root, "same-id-elsewhere", "synthetic-00003", "", 1.0)  # a model with a benchmark's id
    now = time.time_ns()
    built, data = built_by(root, tmp_path / "s", 2, now)
    assert built.workers == 0
    assert data == built_by(root, tmp_path / "s", 1, now)[1]
    assert "identity.duplicate-id" in {f["code"] for f in data["report"]["findings"]}


def test_a_file_removed_after_the_scan_is_reported_not_a_crash(tmp_path: Path) -> None:
    """A record file deleted between the scan and its read (an editor's save, a checkout) is one file that
    failed to load — a racy entry, a ``files.encoding`` finding — in one process and in workers alike; the
    other files are built as usual."""
    root = make_ledger(tmp_path / "ledger")
    add_benchmarks(root, 4)
    files = scan_files(root, sorted(FOLDER_KINDS), {}, time.time_ns(), hashed=False)
    gone = "benchmarks/synthetic-00002.md"
    (root / gone).unlink()
    for jobs in (1, 2):
        workdir = tmp_path / f"jobs-{jobs}"
        workdir.mkdir()
        built = cold_build(root, files, workdir, jobs, min_parallel=1) if jobs > 1 else serial_build(root, files,
                                                                                                     workdir)
        entry = built.entries[gone]
        assert entry.record_id is None and entry.error is not None and entry.stat.racy, entry
        assert entry.error[3] == "files.encoding" and "cannot read the file" in entry.error[2]
        assert built.entries["benchmarks/synthetic-00001.md"].record_id == "synthetic-00001"
        findings = [f for f in built.other if f.code == "files.encoding"]
        assert [f.message for f in findings if "synthetic-00002" in f.message], findings


def _fails() -> None:
    raise ValueError("a check that breaks")


def _dies() -> None:
    os._exit(3)


def test_a_worker_that_raises_or_dies_is_reported() -> None:
    with pytest.raises(ValueError, match="a check that breaks") as raised, ForkedCalls([lambda: 1, _fails]) as calls:
        calls.results()
    assert isinstance(raised.value.__cause__, RemoteTraceback)
    assert "_fails" in str(raised.value.__cause__)
    with pytest.raises(LedgerError, match="exited with status 3"), ForkedCalls([_dies]) as calls:
        calls.results()


class _EndsAForkedCopy:
    """Garbage whose finaliser is unsafe in a forked copy (like an engine handle's): run there, it kills it."""

    def __init__(self) -> None:
        self.owner = os.getpid()
        self.cycle = self

    def __del__(self) -> None:
        if os.getpid() != self.owner:
            os._exit(7)


def _collect() -> int:
    return gc.collect()


def test_a_worker_never_finalises_the_parents_garbage() -> None:
    """The CI crash (a worker's collector finalising an object the parent left as cyclic garbage), made certain:
    the garbage is there at the fork and the worker collects."""
    enabled = gc.isenabled()
    gc.disable()
    gc.unfreeze()  # as a library caller's process: nothing frozen (an in-process CLI test may have frozen it)
    try:
        _EndsAForkedCopy()  # garbage from here on, kept until a collection
        with ForkedCalls([_collect, _collect]) as calls:
            assert all(isinstance(n, int) for n in calls.results())
        assert gc.get_freeze_count() == 0  # the parent's objects are collectable again
        assert gc.collect() >= 1  # collected here, in its own process
    finally:
        if enabled:
            gc.enable()


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _start_and_wait_for_workers(command: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[str], list[int]]:
    """Start the command; return once its ``$BENCHLEDGER_JOBS - 1`` workers run (it builds one run itself)."""
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 600
    while len(workers := _children(proc.pid)) < int(env["BENCHLEDGER_JOBS"]) - 1:  # the event: workers started
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.communicate(timeout=30)
            raise AssertionError("the workers never started")
        time.sleep(0.01)
    return proc, workers


def test_ctrl_c_during_a_parallel_build_ends_it_and_every_worker(tmp_path: Path) -> None:
    root = make_ledger(tmp_path / "ledger")
    add_benchmarks(root, 1200)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "BENCHLEDGER_JOBS": "2", "TMPDIR": str(scratch)}  # one forked worker
    command = [sys.executable, "-m", "benchledger", "audit", "--summary", "--ledger", str(root)]
    start = time.perf_counter()
    full = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)
    full_s = time.perf_counter() - start
    assert full.returncode in (0, 1) and full.stdout.startswith("1212 records:"), full.stderr
    cache = root / ".benchledger-cache"
    for path in cache.iterdir():
        path.unlink()
    proc, workers = _start_and_wait_for_workers(command, env)
    try:
        signalled = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=600)
        after_s = time.perf_counter() - signalled
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert after_s < full_s / 2, f"{after_s:.1f} s after Ctrl-C; a whole build took {full_s:.1f} s"
    assert not [pid for pid in workers if _alive(pid)]
    assert not list(cache.glob("index-*")) and not list(scratch.iterdir())
    # killed outright, it cannot end them itself: the kernel does
    proc, workers = _start_and_wait_for_workers(command, env)
    proc.kill()
    proc.communicate(timeout=30)
    killed = time.perf_counter()
    while alive := [pid for pid in workers if _alive(pid)]:
        assert time.perf_counter() - killed < full_s, f"workers {alive} outlived their killed parent"
        time.sleep(0.01)
