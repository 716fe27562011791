"""Start an engine from a command line, wait until it is healthy, learn its version, stop it afterwards.

Records what a reader needs to reproduce the arm: the exact command (secrets masked by the caller), how long it
took to become ready, the engine version (the engine profiles' endpoints: vLLM ``/version``, llama.cpp
``/props`` ``build_info``, SGLang ``/get_server_info``; else unknown) and the log file. The engine runs in its own process group (its own session) and is stopped with the
whole group — SIGTERM, then SIGKILL after a grace period — so workers it forked (vLLM's engine cores holding
the accelerator) never outlive it. On Linux, when ``launch`` runs in the main thread, the engine also gets a
parent-death signal (``prctl(PR_SET_PDEATHSIG, SIGTERM)`` in the child before exec): if benchledger is
SIGKILLed or crashes, with no chance to stop the group, the kernel sends the engine SIGTERM (its own shutdown
then stops its workers, as on Ctrl-C). The kernel ties that signal to the *thread* that forked, so it is set only
from the main thread, which lives as long as benchledger; elsewhere (another thread, macOS, Windows) an engine
outlives a SIGKILLed benchledger, as any child does. Health and version calls are auxiliary calls (``bench.auxhttp``): each has a
total deadline and a signal cancels them.

The engine's output never reaches the disk unmasked: it goes through a pipe to ``EngineLog``, which writes each
line to the log only after masking its secrets (``bench.redact``: the run's secrets and the values of the
command's credential flags), so a crash or SIGKILL of benchledger leaves no secret in the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchledger.bench.auxhttp import AuxError, AuxHTTP
from benchledger.bench.client import url_with_path
from benchledger.bench.redact import launch_secrets, redact
from benchledger.engines import GENERIC, known_version_sources
from benchledger.errors import BenchError

STOP_GRACE_S = 10.0
KILL_SETTLE_S = 1.0
"""After SIGKILL, how long to wait for the group to disappear (members left as zombies count as alive)."""
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def parent_death_hook() -> Callable[[], None] | None:
    """A pre-exec hook that makes the kernel SIGTERM the child when this process dies, or None where that is not
    available or not safe: not Linux, no ``prctl``, or not the main thread (the signal follows the forking thread).

    Everything the hook calls is resolved before the fork (no import, no lookup in the child); if this process
    died between the fork and the ``prctl``, the child signals itself at once.
    """
    if not sys.platform.startswith("linux") or threading.current_thread() is not threading.main_thread():
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    parent, sigterm, getppid, kill, getpid = os.getpid(), int(signal.SIGTERM), os.getppid, os.kill, os.getpid

    def hook() -> None:
        prctl(PR_SET_PDEATHSIG, sigterm, 0, 0, 0)
        if getppid() != parent:
            kill(getpid(), sigterm)

    return hook


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def stop_group(process: subprocess.Popen[bytes], grace: float = STOP_GRACE_S,
               kill_now: threading.Event | None = None) -> int | None:
    """SIGTERM the process group led by ``process``, SIGKILL what is left after ``grace`` s — or as soon as
    ``kill_now`` is set (a second Ctrl-C); the exit code."""
    pgid = process.pid
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    now = kill_now or threading.Event()
    end = time.monotonic() + grace
    while time.monotonic() < end:
        if process.poll() is not None and not _group_alive(pgid):
            break
        if now.wait(0.05):
            break
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if _group_alive(pgid):
            os.killpg(pgid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=grace)
    end = time.monotonic() + KILL_SETTLE_S  # SIGKILL takes effect asynchronously: let the group go
    while _group_alive(pgid) and time.monotonic() < end:
        time.sleep(0.01)
    return process.returncode


class EngineLog:
    """Copies an engine's output from a pipe into its log file, each line masked before it is written.

    Complete lines (ended by ``\\n`` or ``\\r``, as progress bars end theirs) are written as they come; a line
    that grows past ``LINE_LIMIT`` bytes is written but for its last ``HOLD`` bytes (a secret cut in two at the
    boundary would escape masking). The thread ends when every writer of the pipe has closed it.
    """

    LINE_LIMIT = 64 * 1024
    HOLD = 1024

    def __init__(self, read_fd: int, path: Path, secrets: Iterable[str | None]) -> None:
        self.path = path
        self._secrets = [s for s in secrets if s]
        self._out = path.open("wb")
        self._src = os.fdopen(read_fd, "rb", buffering=0)
        self._thread = threading.Thread(target=self._pump, name=f"engine-log-{path.name}", daemon=True)
        self._thread.start()

    def _clean(self, data: bytes) -> bytes:
        return redact(data.decode("utf-8", errors="replace"), self._secrets).encode("utf-8")

    def _pump(self) -> None:
        pending = b""
        try:
            while data := self._src.read(65536):
                pending += data
                cut = max(pending.rfind(b"\n"), pending.rfind(b"\r")) + 1
                if not cut and len(pending) > self.LINE_LIMIT:
                    cut = len(pending) - self.HOLD
                if cut:
                    self._out.write(self._clean(pending[:cut]))
                    self._out.flush()
                    pending = pending[cut:]
            if pending:
                self._out.write(self._clean(pending))
        finally:
            self._out.close()
            self._src.close()

    def close(self, timeout: float = 5.0) -> None:
        """Wait (at most ``timeout`` s) for the pump to write what the engine wrote before it ended."""
        self._thread.join(timeout)


@dataclass
class Launched:
    """A running engine process started by us (leader of its own process group)."""

    name: str
    command: str
    url: str
    process: subprocess.Popen[bytes]
    log_path: Path
    ready_s: float | None = None
    info: dict[str, Any] = field(default_factory=dict)
    log: EngineLog | None = None
    parent_death_signal: bool = False
    """The kernel SIGTERMs the engine if benchledger dies (``parent_death_hook``)."""

    def stop(self, grace: float = STOP_GRACE_S, kill_now: threading.Event | None = None) -> int | None:
        """Stop the engine's whole process group (see ``stop_group``) and let its log be written; the exit code."""
        code = stop_group(self.process, grace, kill_now)
        if self.log is not None:
            self.log.close()
        return code


async def wait_healthy(url: str, timeout: float, process: subprocess.Popen[bytes] | None = None,  # noqa: ASYNC109
                       http: AuxHTTP | None = None) -> float:
    """Poll the health path (the same in every engine profile) until 200; returns seconds waited. Raises
    BenchError on timeout or process exit."""
    http = http or AuxHTTP(deadline=2.0, attempts=1)
    start = time.monotonic()
    while True:
        if process is not None and process.poll() is not None:
            raise BenchError(f"engine exited with code {process.returncode} before it was healthy ({url})")
        with contextlib.suppress(AuxError):
            if (await http.get(url_with_path(url, GENERIC.health_path))).status == 200:
                return time.monotonic() - start
        if time.monotonic() - start > timeout:
            raise BenchError(f"engine at {url} not healthy after {timeout:g} s")
        await asyncio.sleep(0.2)


async def engine_info(url: str, http: AuxHTTP | None = None) -> dict[str, Any]:
    """Engine version and build facts the server reports (empty values when it reports none)."""
    http = http or AuxHTTP(deadline=2.0, attempts=1)
    info: dict[str, Any] = {"version": None, "version_source": None}

    async def get_json(path: str) -> Any:
        resp = await http.get(url_with_path(url, path))
        if resp.status != 200:
            return None
        try:
            return resp.json()
        except AuxError:
            return resp.text.strip() or None

    try:
        for source in known_version_sources():
            data = await get_json(source.path)
            if isinstance(data, dict) and data.get(source.key):
                info.update(version=str(data[source.key]), version_source=source.label)
                if source.path == "/props":
                    info["model_path"] = data.get("model_path")
                    info["n_parallel"] = data.get("total_slots")
                return info
    except AuxError as exc:  # the version is a nicety: never fail a run on it
        info["error"] = str(exc)
    return info


async def launch(name: str, command: str, url: str, log_dir: Path, timeout: float = 300.0,  # noqa: ASYNC109
                 http: AuxHTTP | None = None, secrets: Iterable[str | None] = ()) -> Launched:
    """Start ``command`` (split like a shell would) in its own process group, log to
    ``log_dir/engine-<name>.log`` (``secrets`` and the command's credential-flag values masked as it is written),
    wait for health. Cancelling (a signal) stops the group before re-raising."""
    log_dir.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240 (a local mkdir)
    log_path = log_dir / f"engine-{name}.log"
    argv = shlex.split(command)
    if not argv:
        raise BenchError(f"--launch {name}: empty command")
    hook = parent_death_hook()
    read_fd, write_fd = os.pipe()
    try:  # Popen starts the engine and returns at once; its own session = its own process group
        proc = subprocess.Popen(argv, stdout=write_fd, stderr=subprocess.STDOUT, env=os.environ.copy(),  # noqa: ASYNC220
                                start_new_session=True, preexec_fn=hook)
    except OSError as exc:
        os.close(read_fd)
        raise BenchError(f"--launch {name}: cannot start {argv[0]!r}: {exc}") from exc
    finally:
        os.close(write_fd)
    log = EngineLog(read_fd, log_path, [*secrets, *launch_secrets(argv)])
    launched = Launched(name=name, command=command, url=url, process=proc, log_path=log_path, log=log,
                        parent_death_signal=hook is not None)
    try:
        launched.ready_s = await wait_healthy(url, timeout, proc, http)
    except BenchError:
        launched.stop(grace=2.0)
        tail = log_path.read_text(errors="replace")[-2000:]
        raise BenchError(f"--launch {name}: engine did not become healthy; log tail:\n{tail}") from None
    except BaseException:
        launched.stop(grace=2.0)
        raise
    launched.info = await engine_info(url, http)
    return launched


__all__ = ["STOP_GRACE_S", "EngineLog", "Launched", "engine_info", "launch", "parent_death_hook", "stop_group",
           "wait_healthy"]
