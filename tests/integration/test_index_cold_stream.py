"""A worker's parts come back as they are built and are loaded in groups of runs as soon as each group is
there (``catalog/workers.py`` streams a generator's items, ``catalog/loading.py``'s ``Arrivals`` gathers
them), not every worker's rows in one load after the last run (issue 15)."""

from __future__ import annotations

import multiprocessing
import re
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_index_cache import make_ledger
from test_index_cold import add_benchmarks

from benchledger.catalog.cold import RUNS_PER_LOAD, built_tables, cold_build
from benchledger.catalog.loading import Arrivals, RowLoader
from benchledger.catalog.scan import scan_files
from benchledger.catalog.workers import ForkedCalls
from benchledger.errors import LedgerError
from benchledger.ledger.index import RowsFile
from benchledger.ledger.paths import FOLDER_KINDS

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="worker processes are forked on Linux only")

WAIT_S = 120.0
"""How long a test waits for an event that must come (a bound against a hang, never a timing assertion)."""


def _two_items_the_second_once_told(told: Any) -> Iterator[int]:
    yield 1
    if not told.wait(WAIT_S):
        raise AssertionError("never told")
    yield 2


def test_a_generators_items_arrive_while_its_worker_still_runs() -> None:
    told = multiprocessing.get_context("fork").Event()
    with ForkedCalls([lambda: _two_items_the_second_once_told(told)]) as forked:
        assert forked.receive(0) == (True, 1)  # the child waits for ``told``: it is still running
        told.set()
        assert forked.receive(0) == (True, 2)
        more, _ = forked.receive(0)
        assert not more and not forked.receivers()
    told.clear()
    told.set()
    with ForkedCalls([lambda: _two_items_the_second_once_told(told), lambda: 5]) as forked:
        assert forked.results() == [[1, 2], 5]


def _numbered(told: Any, fail: bool) -> Iterator[tuple[int, str]]:
    yield 1, "b"
    if not told.wait(WAIT_S):
        raise AssertionError("never told")
    if fail:
        raise ValueError("a run that breaks")
    yield 3, "d"


def test_arrivals_gives_the_parts_in_order_whoever_made_them() -> None:
    told = multiprocessing.get_context("fork").Event()
    with ForkedCalls([lambda: _numbered(told, False)]) as forked, Arrivals[str](forked) as arrivals:
        arrivals.add(0, "a")
        assert arrivals.take(range(2)) == ["a", "b"]  # the worker's part, before the worker is done
        arrivals.add(2, "c")
        told.set()
        assert arrivals.take(range(2, 4)) == ["c", "d"]


def test_a_worker_that_fails_is_raised_where_its_part_is_awaited() -> None:
    told = multiprocessing.get_context("fork").Event()
    told.set()
    with ForkedCalls([lambda: _numbered(told, True)]) as forked, Arrivals[str](forked) as arrivals:
        assert arrivals.take([1]) == ["b"]
        with pytest.raises(ValueError, match="a run that breaks"):
            arrivals.take([3])


def test_a_part_awaited_when_the_build_is_abandoned_raises() -> None:
    told = multiprocessing.get_context("fork").Event()
    raised: list[BaseException] = []
    waiting = threading.Event()

    def take(arrivals: Arrivals[str]) -> None:
        waiting.set()
        try:
            arrivals.take([0])  # made by this process, which fails before it adds it
        except BaseException as exc:
            raised.append(exc)

    with ForkedCalls([lambda: _numbered(told, False)]) as forked:
        with Arrivals[str](forked) as arrivals:
            taker = threading.Thread(target=take, args=(arrivals,))
            taker.start()
            assert waiting.wait(WAIT_S)
        taker.join(WAIT_S)
        told.set()
    assert not taker.is_alive()
    assert len(raised) == 1 and isinstance(raised[0], LedgerError), raised


class _Spy(RowLoader):
    """A ``RowLoader`` that notes which runs each load holds (``chunk<i>`` in the row files' names)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, built_tables())
        self.loads: list[set[str]] = []

    def load(self, files: dict[str, list[RowsFile]]) -> None:
        self.loads.append({match.group(0) for rows in files.values() for f in rows
                           if (match := re.match(r"context|chunk\d+", f.path.name))})
        super().load(files)


def test_the_runs_are_loaded_a_group_at_a_time_in_order(tmp_path: Path) -> None:
    """Every load after the context's holds exactly the runs of one group, the groups in order: a worker's
    runs are loaded with their group, not all of them in one load after the last run is built."""
    root = make_ledger(tmp_path / "ledger")
    add_benchmarks(root, 40)
    workdir = tmp_path / "work"
    workdir.mkdir()
    spy = _Spy(workdir / "index.duckdb")
    try:
        built = cold_build(root, scan_files(root, sorted(FOLDER_KINDS), {}, time.time_ns()), workdir, 3,
                           min_parallel=1, rows=spy)
    finally:
        spy.close()
    assert built.workers == 3
    runs = {int(name[len("chunk"):]) for load in spy.loads for name in load if name != "context"}
    assert runs == set(range(len(runs))) and len(runs) > 2 * RUNS_PER_LOAD
    groups = [range(start, min(start + RUNS_PER_LOAD, len(runs))) for start in range(0, len(runs), RUNS_PER_LOAD)]
    assert spy.loads == [{"context"}, *({f"chunk{i}" for i in group} for group in groups)]
