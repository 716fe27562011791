"""A build killed with SIGKILL leaves its staging folder; the next build removes it, and only what it can prove
is such a leftover (issue 11)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from benchledger.ledger.store import Ledger
from benchledger.site import build_site
from benchledger.site.build import STAGING_MARKER, _new_staging

CHILD = """
import os, signal, sys
from pathlib import Path
from benchledger.site.build import STAGING_MARKER, _new_staging
staging = _new_staging(Path(sys.argv[1]), "building")
(staging / STAGING_MARKER).write_text("killed build", encoding="utf-8")
(staging / "index.html").write_text("half a page", encoding="utf-8")
print(staging, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_killed_build_leftovers_are_removed_by_the_next_build(mini_ledger: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    child = subprocess.run([sys.executable, "-c", CHILD, str(target)], capture_output=True, text=True, timeout=120,
                           check=False, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert child.returncode == -signal.SIGKILL, child.stderr
    stale = Path(child.stdout.strip())
    assert stale.is_dir() and stale.parent == tmp_path
    live = _new_staging(target, "building")  # this process is alive: its folder is not a leftover
    (live / STAGING_MARKER).write_text("alive", encoding="utf-8")
    unmarked = tmp_path / stale.name.replace(stale.name.rsplit("-", 1)[-1], "zzzz")
    unmarked.mkdir()
    (unmarked / "notes.txt").write_text("not ours to delete", encoding="utf-8")

    report = build_site(Ledger.load(mini_ledger), target)

    assert not stale.exists()
    assert live.is_dir() and unmarked.is_dir()
    assert report.out == target.resolve() and (target / "index.html").is_file()
    assert not (target / STAGING_MARKER).exists()
    leftovers = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".site."))
    assert leftovers == sorted([live.name, unmarked.name])
