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
