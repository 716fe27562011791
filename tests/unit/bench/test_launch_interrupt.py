"""An engine whose health wait is interrupted (Ctrl-C, a signal turned into an exception) is stopped, not orphaned."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType

import pytest

from benchledger.bench.launch import launch


class Interrupted(Exception):
    pass


def test_interrupted_health_wait_stops_the_engine(tmp_path: Path) -> None:
    pid_file = tmp_path / "engine.pid"
    child = f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(120)"
    command = f"{sys.executable} -c \"{child}\""

    def interrupt_when_started() -> None:
        deadline = time.monotonic() + 60
        while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGUSR1)

    def handler(_sig: int, _frame: FrameType | None) -> None:
        raise Interrupted

    previous = signal.signal(signal.SIGUSR1, handler)
    thread = threading.Thread(target=interrupt_when_started, daemon=True)
    thread.start()
    try:
        with pytest.raises(Interrupted):
            launch("engine", command, "http://127.0.0.1:9", tmp_path, timeout=120)
    finally:
        signal.signal(signal.SIGUSR1, previous)
        thread.join(60)
    pid = int(pid_file.read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # stopped and reaped by launch()
