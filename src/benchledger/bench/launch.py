"""Start an engine from a command line, wait until it is healthy, learn its version, stop it afterwards.

Records what a reader needs to reproduce the arm: the exact command, how long it took to become ready, the
engine version (``/version``, else llama.cpp's ``/props`` ``build_info``, else unknown) and the log file.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchledger.errors import BenchError


@dataclass
class Launched:
    """A running engine process started by us."""

    name: str
    command: str
    url: str
    process: subprocess.Popen[bytes]
    log_path: Path
    ready_s: float | None = None
    info: dict[str, Any] = field(default_factory=dict)

    def stop(self, grace: float = 10.0) -> int | None:
        """SIGTERM, then SIGKILL after ``grace`` seconds; returns the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=grace)
        return self.process.returncode


def _get_json(url: str, timeout: float = 2.0) -> Any:
    import httpx

    with httpx.Client(timeout=timeout) as client:
        resp = client.get(url)
        if resp.status_code != 200:
            return None
        try:
            return resp.json()
        except ValueError:
            return resp.text.strip() or None


def wait_healthy(url: str, timeout: float, process: subprocess.Popen[bytes] | None = None) -> float:
    """Poll ``url``/health until 200; returns seconds waited. Raises BenchError on timeout or process exit."""
    import httpx

    start = time.monotonic()
    while True:
        if process is not None and process.poll() is not None:
            raise BenchError(f"engine exited with code {process.returncode} before it was healthy ({url})")
        try:
            with httpx.Client(timeout=2.0) as client:
                if client.get(url.rstrip("/") + "/health").status_code == 200:
                    return time.monotonic() - start
        except httpx.HTTPError:
            pass
        if time.monotonic() - start > timeout:
            raise BenchError(f"engine at {url} not healthy after {timeout:g} s")
        time.sleep(0.2)


def engine_info(url: str) -> dict[str, Any]:
    """Engine version and build facts the server reports (empty values when it reports none)."""
    info: dict[str, Any] = {"version": None, "version_source": None}
    base = url.rstrip("/")
    try:
        version = _get_json(base + "/version")
        if isinstance(version, dict) and version.get("version"):
            info.update(version=str(version["version"]), version_source="/version")
            return info
        props = _get_json(base + "/props")
        if isinstance(props, dict) and props.get("build_info"):
            info.update(version=str(props["build_info"]), version_source="/props build_info")
            info["model_path"] = props.get("model_path")
            info["n_parallel"] = props.get("total_slots")
    except Exception as exc:  # the version is a nicety: never fail a run on it
        info["error"] = str(exc)
    return info


def launch(name: str, command: str, url: str, log_dir: Path, timeout: float = 300.0) -> Launched:
    """Start ``command`` (split like a shell would), log to ``log_dir/<name>.log``, wait for health."""
    log_dir.mkdir(parents=True, exist_ok=True)
    log_path = log_dir / f"engine-{name}.log"
    argv = shlex.split(command)
    if not argv:
        raise BenchError(f"--launch {name}: empty command")
    log = log_path.open("wb")
    try:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy(),
                                start_new_session=True)
    except OSError as exc:
        log.close()
        raise BenchError(f"--launch {name}: cannot start {argv[0]!r}: {exc}") from exc
    log.close()
    launched = Launched(name=name, command=command, url=url, process=proc, log_path=log_path)
    try:
        launched.ready_s = wait_healthy(url, timeout, proc)
    except BenchError:
        launched.stop(grace=2.0)
        tail = log_path.read_text(errors="replace")[-2000:]
        raise BenchError(f"--launch {name}: engine did not become healthy; log tail:\n{tail}") from None
    launched.info = engine_info(url)
    return launched


__all__ = ["Launched", "engine_info", "launch", "wait_healthy"]
