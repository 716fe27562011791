"""Calls run side by side in forked worker processes, for the cold build of the index (``cold.py``).

Each call runs in its own child, forked from this process (so it reads this process's objects without
copying them through a pipe) and sends back one plain, picklable result. ``ForkedCalls`` is a context
manager: on leaving it — normally, on an exception, on Ctrl-C — every child still running is terminated
and reaped, so none outlives the command; one whose parent is killed is ended by the kernel. The children
ignore SIGINT (a terminal's Ctrl-C reaches the whole process group): the parent alone decides, and ends
them. A call that returns an iterator (a generator) sends each item as it is made: ``receive(i)`` gives
them one by one while the child still runs (``results()`` gives the list of them). A child that raises
sends its exception back and the parent raises it; one that dies without a result is a ``LedgerError``
naming its exit status. Forking is used only where it is safe and cheap
(Linux); ``fork_available`` says whether it is.

Every object alive at the fork is frozen (``gc.freeze``) first, as the ``gc`` documentation advises for
fork without exec: a child's cyclic collector then never finalises the parent's garbage — an engine
handle, a database connection or an event loop whose finaliser is not safe in a forked copy (it crashed a
child with SIGSEGV). The parent's own freeze, if it had one, is kept; else its objects are unfrozen once
every child has started.
"""

from __future__ import annotations

import ctypes
import fcntl
import gc
import mmap
import multiprocessing
import os
import signal
import struct
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import TracebackType
from typing import Any

from benchledger.errors import LedgerError

JOBS_ENV = "BENCHLEDGER_JOBS"
TERMINATE_GRACE_S = 5.0
"""How long a terminated child may take to exit before it is killed."""


def fork_available() -> bool:
    return sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods()


def default_jobs() -> int:
    """``$BENCHLEDGER_JOBS`` when set (a whole number ≥ 1), else the CPUs this process may run on; 1 where
    workers cannot be forked."""
    text = os.environ.get(JOBS_ENV, "").strip()
    if text:
        try:
            jobs = int(text)
        except ValueError:
            jobs = 0
        if jobs < 1:
            raise LedgerError(f"{JOBS_ENV}={text!r}: expected a whole number of worker processes, 1 or more")
        return jobs if fork_available() else 1
    if not fork_available():
        return 1
    return len(os.sched_getaffinity(0)) or 1


class RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker (the cause of the exception re-raised here)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)

    def __str__(self) -> str:
        return str(self.args[0])


class ForkedCalls:
    """Run each call in a forked child; ``results()`` waits for all of them, in the calls' order."""

    def __init__(self, calls: Sequence[Callable[[], Any]]) -> None:
        self._calls = list(calls)
        self._children: list[tuple[BaseProcess, Connection]] = []

    def __enter__(self) -> ForkedCalls:
        context = multiprocessing.get_context("fork")
        frozen_before = gc.get_freeze_count()
        gc.freeze()  # the children's collectors must not finalise what this process left as garbage
        try:
            for call in self._calls:
                self._start(context, call)
        except BaseException:
            self._end_all()
            raise
        finally:
            if not frozen_before:
                gc.unfreeze()
        return self

    def _start(self, context: Any, call: Callable[[], Any]) -> None:
        """Fork one child; Ctrl-C is held off until it is listed, so that every child started is ended."""
        receiver, sender = context.Pipe(duplex=False)
        child = context.Process(target=_run_child, args=(call, sender, os.getpid()), daemon=True)
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            child.start()
            self._children.append((child, receiver))
        except BaseException:
            receiver.close()
            raise
        finally:
            sender.close()
            signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a Ctrl-C held off is raised here

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._end_all()

    @property
    def pids(self) -> list[int]:
        return [child.pid for child, _ in self._children if child.pid is not None]

    def results(self) -> list[Any]:
        """Every call's result in order (a generator's: the list of its items); the first failure (an
        exception, a child that died) is raised."""
        results: list[Any] = [None] * len(self._children)
        items: list[list[Any]] = [[] for _ in self._children]
        pending = {receiver: i for i, (_, receiver) in enumerate(self._children)}
        while pending:
            for receiver in wait(list(pending)):
                i = pending[receiver]  # type: ignore[index]
                more, value = self.receive(i)
                if more:
                    items[i].append(value)
                else:
                    del pending[receiver]  # type: ignore[arg-type]
                    results[i] = items[i] if isinstance(value, _ItemsSent) else value
        return results

    def result(self, i: int) -> Any:
        """The result of call ``i`` once it is there (each call's result is received once: by this or by
        ``results()``); its failure is raised."""
        items: list[Any] = []
        while True:
            more, value = self.receive(i)
            if not more:
                return items if isinstance(value, _ItemsSent) else value
            items.append(value)

    def receivers(self) -> dict[Connection, int]:
        """The pipe of each call still sending (to ``multiprocessing.connection.wait`` on) → the call's number."""
        return {receiver: i for i, (_, receiver) in enumerate(self._children) if not receiver.closed}

    def receive(self, i: int) -> tuple[bool, Any]:
        """The next message of call ``i``: ``(True, item)`` (a generator's item; more follow) or ``(False,
        result)`` (its last; an ``_ItemsSent`` after a generator's items); its failure is raised."""
        child, receiver = self._children[i]
        try:
            ok, value = receiver.recv()
        except EOFError:
            receiver.close()
            child.join()
            raise LedgerError(f"an index worker process (pid {child.pid}) exited with status {child.exitcode} "
                              f"before it finished; {JOBS_ENV}=1 builds the index in one process") from None
        except BaseException:
            receiver.close()
            raise
        if ok is None:
            return True, value
        receiver.close()
        if ok:
            return False, value
        error, text = value
        raise error from RemoteTraceback(text)

    def _end_all(self) -> None:
        for child, _ in self._children:
            if child.is_alive():
                child.terminate()
        for child, receiver in self._children:
            child.join(TERMINATE_GRACE_S)
            if child.is_alive():
                child.kill()
                child.join()
            receiver.close()
            child.close()
        self._children.clear()


class Claims:
    """The numbers 0 … ``count - 1``, each handed out once among this process and the children it forks:
    ``first()`` takes the lowest left, ``last()`` the highest left (None when none is left). One process
    claiming with ``first()`` and the others with ``last()``, the first's numbers are a run from 0 and the
    others' the rest, wherever they meet.

    Made before the fork: the two ends live in an anonymous shared mapping, changed under a POSIX record
    lock on ``lock_path`` (``lockf``: held per process, and dropped by the kernel when its holder dies, so a
    killed child never leaves the others waiting). One thread per process claims (the lock is per process).
    """

    def __init__(self, count: int, lock_path: Path) -> None:
        self._ends = mmap.mmap(-1, _ENDS.size)
        _ENDS.pack_into(self._ends, 0, 0, count)
        self._fd = os.open(lock_path, os.O_CREAT | os.O_RDWR, 0o600)

    def first(self) -> int | None:
        return self._take(low=True)

    def last(self) -> int | None:
        return self._take(low=False)

    def _take(self, *, low: bool) -> int | None:
        fcntl.lockf(self._fd, fcntl.LOCK_EX)
        try:
            start, end = _ENDS.unpack_from(self._ends, 0)
            if start >= end:
                return None
            taken: int = start if low else end - 1
            _ENDS.pack_into(self._ends, 0, start + low, end - (not low))
            return taken
        finally:
            fcntl.lockf(self._fd, fcntl.LOCK_UN)

    def __enter__(self) -> Claims:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        os.close(self._fd)
        self._ends.close()


_ENDS = struct.Struct("qq")


def _run_child(call: Callable[[], Any], sender: Connection, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and ends its children
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _end_with_parent(parent)
    try:
        result = call()
        if isinstance(result, Iterator):  # each item sent as it is made
            for item in result:
                sender.send((None, item))
            result = _ItemsSent()
        message: tuple[bool, Any] = (True, result)
    except BaseException as exc:  # sent back whole: the parent raises it
        message = (False, (exc, traceback.format_exc()))
    try:
        sender.send(message)
    except Exception as exc:  # the result or the exception does not pickle
        sender.send((False, (RuntimeError(f"an index worker's result could not be sent back: {exc}"),
                             traceback.format_exc())))
    finally:
        sender.close()


def _end_with_parent(parent: int) -> None:
    """Have the kernel end this child when its parent dies, however it dies (Linux ``PR_SET_PDEATHSIG``)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request was made
        os._exit(1)


_PR_SET_PDEATHSIG = 1


class _ItemsSent:
    """A generator's last message: its items came before."""


__all__ = ["JOBS_ENV", "Claims", "ForkedCalls", "RemoteTraceback", "default_jobs", "fork_available"]
