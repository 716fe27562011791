"""Start the fake OpenAI server as a separate process (so tests can kill it) and read its truth file."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

SERVER = Path(__file__).with_name("openai_server.py")


@contextmanager
def fake_server_process(tmp: Path, name: str = "fake", **options: Any) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    """Yields (url, process, truth file). Options map to the server's command-line flags."""
    ready = tmp / f"{name}.ready"
    truth = tmp / f"{name}.truth.jsonl"
    cmd = [sys.executable, str(SERVER), "--ready-file", str(ready), "--truth-file", str(truth)]
    for key, value in options.items():
        cmd += [f"--{key.replace('_', '-')}", str(value)]
    proc = subprocess.Popen(cmd)
    try:
        deadline = time.monotonic() + 15
        while not ready.exists():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("fake server did not start")
            time.sleep(0.02)
        yield ready.read_text(), proc, truth
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


def read_truth(path: Path) -> dict[str, dict[str, Any]]:
    """Truth per response id."""
    if not path.exists():
        return {}
    return {d["id"]: d for d in (json.loads(x) for x in path.read_text().splitlines() if x.strip())}


def wait_truth(path: Path, count: int, timeout: float = 30.0) -> dict[str, dict[str, Any]]:
    """The truth once ``count`` streams are in it: the server writes a line just after a stream's last bytes,
    so the client can finish first. Polls the file (a deadline, never a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while len(truth := read_truth(path)) < count:
        if time.monotonic() > deadline:
            raise AssertionError(f"the fake server logged {len(truth)} of {count} streams within {timeout:g} s")
        time.sleep(0.01)
    return truth
