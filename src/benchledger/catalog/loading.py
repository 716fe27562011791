"""The cold build's rows loaded into the new database while the rest is still being built.

DuckDB reads row files outside the GIL, so a thread of this process (``Loading``) can load each part of the
build (``cold.py``: the context records, then the runs a group at a time, whoever built them) while this
process parses and checks the next part and the workers run theirs. Parts are loaded in the order they are
handed over, whatever order they are ready in, so the tables' row order is the same in every build.
``RowLoader`` connects on the first part, after the workers are forked (no child starts with an open
database). ``Arrivals`` gathers the runs' parts as they are made, by this process or sent back by a worker,
so that each group of runs is loaded as soon as all of them are built (not every worker's runs in one load
after the last run).
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Iterable
from multiprocessing.connection import wait
from pathlib import Path
from types import TracebackType
from typing import Generic, TypeVar

from benchledger.catalog.threads import start_whole
from benchledger.catalog.workers import ForkedCalls
from benchledger.errors import LedgerError
from benchledger.ledger.duckdb_engine import duckdb
from benchledger.ledger.index import Columns, RowsFile, create_table, insert_files

Part = TypeVar("Part")


class RowLoader:
    """A new DuckDB database with these tables (name → columns), filled with row files table by table."""

    def __init__(self, path: Path, tables: dict[str, Columns],
                 prepare: Callable[[duckdb.DuckDBPyConnection], None] | None = None) -> None:
        """``prepare``: what else the new database needs before the rows (e.g. more tables and the views), done
        when it is made (in the loading thread, while the build goes on)."""
        self.path = path
        self.tables = tables
        self._prepare = prepare
        self._con: duckdb.DuckDBPyConnection | None = None

    def connection(self) -> duckdb.DuckDBPyConnection:
        """The database, with every table created (connected on the first call)."""
        if self._con is None:
            con = duckdb.connect(str(self.path))
            try:
                for name, columns in self.tables.items():
                    create_table(con, name, columns)
                if self._prepare is not None:
                    self._prepare(con)
            except BaseException:
                con.close()
                raise
            self._con = con
        return self._con

    def load(self, files: dict[str, list[RowsFile]]) -> None:
        """Append each table's rows (table name → its files, in order), then write them to the file
        (``CHECKPOINT``: done here, while the build goes on, the final checkpoint has only what comes after the
        rows)."""
        con = self.connection()
        for name, rows in files.items():
            insert_files(con, name, self.tables[name], rows)
        con.execute("CHECKPOINT")

    def discard(self) -> None:
        """Forget every row loaded: the database is removed and made again on the next ``connection()``."""
        self.close()
        for path in (self.path, Path(f"{self.path}.wal")):
            path.unlink(missing_ok=True)

    def interrupt(self) -> None:
        """Stop the statement running now, if any (from another thread: a load being abandoned)."""
        if self._con is not None:
            self._con.interrupt()

    def close(self) -> None:
        if self._con is not None:
            self._con.close()
            self._con = None


class Loading(Generic[Part]):
    """Parts loaded in a thread, in the order handed over: ``put(get)`` queues a call that gives a part (it may
    wait for a worker), ``finish()`` waits for every load and gives the parts.

    As a context manager: leaving it by an exception (Ctrl-C included) abandons the loads not started,
    interrupts the one running and waits for the thread; a failure in the thread is raised by ``finish()``.
    """

    def __init__(self, files_of: Callable[[Part], dict[str, list[RowsFile]]],
                 load: Callable[[dict[str, list[RowsFile]]], None],
                 interrupt: Callable[[], None]) -> None:
        self._files_of = files_of
        self._load = load
        self._interrupt = interrupt
        self._queue: queue.SimpleQueue[Callable[[], Part] | None] = queue.SimpleQueue()
        self._parts: list[Part] = []
        self._error: BaseException | None = None
        self._abandoned = False
        self._thread = threading.Thread(target=self._run, name="benchledger-index-rows", daemon=True)

    def __enter__(self) -> Loading[Part]:
        return self

    def put(self, get: Callable[[], Part]) -> None:
        """Queue a part; the thread starts with the first (so that workers forked before it fork no thread)."""
        self._queue.put(get)
        if not self._thread.is_alive() and self._thread.ident is None:
            start_whole(self._thread)  # (a Ctrl-C raised once it runs: __exit__ stops it)

    def finish(self) -> list[Part]:
        self._queue.put(None)
        if self._thread.ident is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error
        return self._parts

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._thread.is_alive():
            self._abandoned = True
            self._queue.put(None)
            self._interrupt()
            self._thread.join()

    def _run(self) -> None:
        while (get := self._queue.get()) is not None:
            if self._error is not None or self._abandoned:
                continue
            try:
                part = get()
                self._parts.append(part)
                self._load(self._files_of(part))
            except BaseException as exc:  # raised in the caller's thread by finish()
                self._error = exc


class Arrivals(Generic[Part]):
    """Numbered parts as they are made: by this process (``add``) or by the workers of ``forked``, each of
    whose calls yields ``(number, part)`` pairs, received by a thread as soon as they are sent (a worker never
    waits for a load to send its next part). ``take(numbers)`` (in the loading thread) waits until the parts
    of those numbers are all there and gives them in that order; a worker's failure is raised there.

    A context manager, entered once the workers are forked: leaving it ends the receiving thread and makes a
    ``take`` waiting, or any later, raise ``LedgerError`` (the loading thread never waits for a part that
    will not come)."""

    def __init__(self, forked: ForkedCalls) -> None:
        self._forked = forked
        self._parts: dict[int, Part] = {}
        self._changed = threading.Condition()
        self._error: BaseException | None = None
        self._closed = False
        self._wake_read, self._wake_write = os.pipe()
        self._thread = threading.Thread(target=self._receive, name="benchledger-index-parts", daemon=True)

    def __enter__(self) -> Arrivals[Part]:
        try:
            start_whole(self._thread)
        except BaseException:  # (a Ctrl-C raised once it runs: ``with`` leaves without calling __exit__)
            self.__exit__(None, None, None)
            raise
        return self

    def add(self, number: int, part: Part) -> None:
        with self._changed:
            self._parts[number] = part
            self._changed.notify_all()

    def take(self, numbers: Iterable[int]) -> list[Part]:
        wanted = list(numbers)
        with self._changed:
            while not all(n in self._parts for n in wanted):
                if self._error is not None:
                    raise self._error
                if self._closed:
                    raise LedgerError("the index build was abandoned before every part was made")
                self._changed.wait()
            return [self._parts.pop(n) for n in wanted]

    def _receive(self) -> None:
        try:
            while receivers := self._forked.receivers():
                ready = wait([self._wake_read, *receivers])
                if self._wake_read in ready:
                    return
                for receiver in ready:
                    more, item = self._forked.receive(receivers[receiver])  # type: ignore[index]
                    if more:
                        self.add(*item)
        except BaseException as exc:  # raised by take() in the loading thread
            with self._changed:
                self._error = exc
                self._changed.notify_all()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        os.write(self._wake_write, b"x")
        if self._thread.ident is not None:  # (started)
            self._thread.join()
        os.close(self._wake_read)
        os.close(self._wake_write)


__all__ = ["Arrivals", "Loading", "RowLoader"]
