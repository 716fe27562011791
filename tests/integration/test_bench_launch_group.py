"""A launched engine runs in its own process group and is stopped with it: forked workers never outlive it."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path

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
    import signal
    import subprocess
    import time

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
