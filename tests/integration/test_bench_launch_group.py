"""A launched engine runs in its own process group and is stopped with it: forked workers never outlive it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchledger.bench.launch import launch

SERVER = Path(__file__).resolve().parents[1] / "fakes" / "openai_server.py"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


def test_stopping_an_engine_stops_the_workers_it_forked(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    pidfile = tmp_path / "worker.pid"
    # the "engine" forks a worker that ignores SIGTERM, then becomes the server
    command = (f"bash -c 'trap \"\" TERM; sleep 300 & echo $! > {pidfile}; exec {sys.executable} {SERVER} "
               f"--port {port} --ready-file {tmp_path / 'ready'}'")
    eng = asyncio.run(launch("base", command, f"http://127.0.0.1:{port}", tmp_path, timeout=60))
    worker = int(pidfile.read_text())
    assert os.getpgid(worker) == eng.process.pid  # same group, led by the engine
    assert _alive(worker)
    eng.stop(grace=1.0)
    assert eng.process.poll() is not None
    assert not _alive(worker)


def test_sigint_while_waiting_for_health_stops_the_engine_group(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    pidfile = tmp_path / "engine.pid"
    engine = f"bash -c 'trap \"\" TERM; echo $$ > {pidfile}; sleep 300 & wait'"  # never healthy, ignores TERM
    cmd = [sys.executable, "-m", "benchledger", "bench", "--arm", f"base=http://127.0.0.1:{port}",
           "--launch", f"base={engine}", "--out", str(tmp_path / "o"), "--num-prompts", "2"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (pidfile.exists() and pidfile.read_text().strip()):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.02)
    engine_pid = int(pidfile.read_text())
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "interrupted before the run started" in stderr
    assert not _alive(engine_pid)  # SIGTERM ignored: SIGKILL after the grace period took the group


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


SECRETS = ("hf_launchsecret12345678", "launch-secret-5151", "client-key-6262")


def _engine(tmp_path: Path, port: int) -> str:
    return (f"{sys.executable} {SERVER} --port {port} --ready-file {tmp_path / 'ready'} "
            f"--hf-token {SECRETS[0]} --api-key {SECRETS[1]}")


def test_the_engine_log_is_masked_while_the_engine_runs(tmp_path: Path) -> None:
    port = _free_port()
    eng = asyncio.run(launch("base", _engine(tmp_path, port), f"http://127.0.0.1:{port}", tmp_path, timeout=60,
                             secrets=[SECRETS[2]]))
    try:
        # the engine printed its argv (a Python list) before it became healthy: that line is on disk now, masked
        text = eng.log_path.read_text()
        assert "argv:" in text and "--hf-token" in text and "***" in text
        assert not any(s in text for s in SECRETS)
    finally:
        eng.stop(grace=1.0)
    text = eng.log_path.read_text()
    assert "argv:" in text and not any(s in text for s in SECRETS)


@contextlib.contextmanager
def _benchledger_that_launched_an_engine(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], int, str]]:
    """A Python process that launches the fake engine through ``launch`` from its main thread, prints the engine's
    pid and whether the parent-death signal is armed, then idles; it and the engine group are reaped at the end."""
    port = _free_port()
    script = (
        "import asyncio, time\n"
        "from pathlib import Path\n"
        "from benchledger.bench.launch import launch\n"
        f"eng = asyncio.run(launch('base', {_engine(tmp_path, port)!r}, 'http://127.0.0.1:{port}', "
        f"Path({str(tmp_path)!r}), timeout=60))\n"
        "print(eng.process.pid, eng.parent_death_signal, flush=True)\n"
        "time.sleep(300)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    engine_pid = None
    try:
        assert proc.stdout is not None
        pid_text, armed = proc.stdout.readline().split()  # the engine is up and has printed its argv
        engine_pid = int(pid_text)
        yield proc, engine_pid, armed
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()
        if engine_pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(engine_pid, signal.SIGKILL)


def test_a_sigkilled_benchledger_leaves_no_secret_in_the_engine_log(tmp_path: Path) -> None:
    with _benchledger_that_launched_an_engine(tmp_path) as (proc, _engine_pid, _armed):
        proc.send_signal(signal.SIGKILL)  # benchledger dies without any chance to clean up
        proc.wait(10)
        text = (tmp_path / "engine-base.log").read_text()
        assert "argv:" in text and not any(s in text for s in SECRETS)


def test_a_sigkilled_benchledger_takes_its_engine_with_it(tmp_path: Path) -> None:
    """Linux: the engine gets the parent-death signal (SIGTERM) when the benchledger process that launched it
    (from its main thread) is SIGKILLed and cannot stop the group itself."""
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux-only: elsewhere the engine outlives a SIGKILLed benchledger")
    with _benchledger_that_launched_an_engine(tmp_path) as (proc, engine_pid, armed):
        assert armed == "True" and _alive(engine_pid)  # healthy and serving
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 30  # a bound on a hang, not a timing tolerance: it ends at the first poll
        while _alive(engine_pid):     # that sees the engine gone
            assert time.monotonic() < deadline, "the engine outlived the SIGKILLed benchledger"
            time.sleep(0.01)


def test_the_parent_death_signal_is_set_only_from_the_main_thread() -> None:
    """The kernel sends it when the forking *thread* ends: a launch from a short-lived thread must not arm it."""
    import threading

    from benchledger.bench.launch import parent_death_hook

    seen: list[object] = []
    worker = threading.Thread(target=lambda: seen.append(parent_death_hook()))
    worker.start()
    worker.join()
    assert seen == [None]
    assert (parent_death_hook() is not None) == sys.platform.startswith("linux")
