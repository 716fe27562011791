"""``scripts/busy-test.sh`` runs the command beside busy loops, passes its exit status on and always stops them."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "busy-test.sh"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ", 1)[1].startswith("Z"))


def test_loops_run_during_the_command_and_stop_after_it_fails() -> None:
    env = {**os.environ, "BUSY_LOOPS": "2", "BUSY_WARMUP_S": "0"}
    probe = "import sys; sys.exit(3)"
    done = subprocess.run([str(SCRIPT), "python3", "-c", probe], capture_output=True, text=True, timeout=60,
                          env=env, check=False)
    assert done.returncode == 3, done.stdout + done.stderr
    started = re.search(r"2 busy loops \(pids ([\d ]+)\); load average: [\d.]+ [\d.]+ [\d.]+", done.stdout)
    assert started, done.stdout
    pids = [int(p) for p in started.group(1).split()]
    assert len(pids) == 2 and not any(_alive(p) for p in pids)
    assert re.search(r"command exited 3; load average: [\d.]+", done.stdout)
