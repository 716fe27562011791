"""The cyclic garbage collector on the cached index's path (``benchledger/ledger/collector.py``): no collection
runs while a command opens and updates the index (the schema, audit and physics modules it imports, a row per
record file), and a CLI process freezes what it loaded, so that no later collection (the one at exit neither)
rescans it. Counted with ``gc.callbacks`` in a real CLI process; no timing."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchledger.catalog.cache import current_db, open_index

from ledger_builder import build_mini_ledger

LATER_NS = 60 * 10**9

PROBE = """\
import atexit, gc, json, sys
import benchledger.catalog.cache as cache
seen = {"inside": False, "during": [], "frozen": None}
gc.callbacks.append(lambda phase, info: seen["during"].append(info["generation"])
                    if phase == "start" and seen["inside"] else None)
opened = cache.open_index
def open_index(*args, **kwargs):
    seen["inside"] = True
    try:
        return opened(*args, **kwargs)
    finally:
        seen["inside"] = False
cache.open_index = open_index
atexit.register(lambda: open(REPORT, "w").write(json.dumps({**seen, "frozen": gc.get_freeze_count()})))
sys.argv = ["benchledger", *ARGS]
from benchledger.cli import main
main()
"""


def cli_collections(tmp_path: Path, *args: str) -> tuple[str, dict[str, object]]:
    """Run ``benchledger ARGS`` in a fresh process: its stdout, and the generations of the collections that
    started while it opened the index, and how many objects were frozen at exit."""
    report = tmp_path / "collections.json"
    code = f"REPORT = {str(report)!r}\nARGS = {list(args)!r}\n" + PROBE
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env,
                         check=False)
    assert out.returncode == 0, out.stderr
    return out.stdout, json.loads(report.read_text(encoding="utf-8"))


def test_an_update_by_the_cli_runs_no_collection_and_freezes_what_it_loaded(tmp_path: Path) -> None:
    root = build_mini_ledger(tmp_path / "ledger")
    open_index(root, clock=lambda: time.time_ns() + LATER_NS).close()  # (no file racy: the edit is seen)
    db = current_db(root)
    bench = root / "benchmarks" / "test-bench.md"
    bench.write_text(bench.read_text(encoding="utf-8") + "\nEdited.\n", encoding="utf-8")
    out, seen = cli_collections(tmp_path, "query", "select count(*) as n from benchmarks", "-f", "csv",
                                "--ledger", str(root))
    assert out == "n\n1\n"
    assert current_db(root) != db  # (updated: the refresh modules were imported and run)
    assert seen["during"] == []
    assert isinstance(seen["frozen"], int) and seen["frozen"] > 0


def test_open_index_leaves_the_collector_as_it_found_it(tmp_path: Path) -> None:
    root = build_mini_ledger(tmp_path / "ledger")
    assert gc.isenabled()
    open_index(root).close()
    assert gc.isenabled()
    gc.disable()
    try:
        open_index(root).close()
        assert not gc.isenabled()
    finally:
        gc.enable()
