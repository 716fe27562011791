"""The record files' stats taken in a background thread while the cache's database opens (catalog/statsahead.py):
the same stats and digest as ``scan.current_stats`` for whichever folders the cache names, and no such thread
left running once the index is open."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from benchledger.catalog.cache import current_db, open_index
from benchledger.catalog.scan import current_stats
from benchledger.catalog.statsahead import StatsAhead

from ledger_builder import build_mini_ledger


def _ledger_with_odd_folders(root: Path) -> Path:
    build_mini_ledger(root)
    (root / "benchmarks" / "sub").mkdir()
    (root / "benchmarks" / "sub" / "nested.md").write_text("nested\n", encoding="utf-8")  # (not listed)
    (root / "benchmarks" / ".hidden.md").write_text("hidden\n", encoding="utf-8")  # (not listed)
    (root / ".hidden-folder").mkdir()
    (root / ".hidden-folder" / "a.md").write_text("a\n", encoding="utf-8")
    (root / "runs").mkdir()
    (root / "runs" / "loose.jsonl").write_text("{}\n", encoding="utf-8")
    (root / "a-file.md").write_text("top\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("folders", [["accelerators", "benchmarks", "engines", "formats", "models", "sources"],
                                     ["sources", "benchmarks"], ["benchmarks", "no-such-folder", "a-file.md"],
                                     [".hidden-folder", "runs"], []])
def test_the_stats_taken_ahead_are_those_current_stats_takes(tmp_path: Path, folders: list[str]) -> None:
    root = _ledger_with_odd_folders(tmp_path / "ledger")
    ahead = StatsAhead(root)
    digest, listed = ahead.current_stats(folders)
    assert ahead._found is not None  # (taken ahead, not again by the fallback)
    assert (digest, listed) == current_stats(root, folders)
    if ".hidden-folder" in folders:  # (a folder the cache never names, but one asked for is one given)
        assert any(rel.startswith(".hidden-folder/") for rel, *_ in listed)
    assert not ahead._thread.is_alive()


def test_a_ledger_gone_before_the_thread_looked_gives_what_current_stats_gives(tmp_path: Path) -> None:
    root = tmp_path / "gone"
    ahead = StatsAhead(root)
    assert ahead.current_stats(["benchmarks"]) == current_stats(root, ["benchmarks"])
    assert ahead._found is None  # (the thread found no folder: taken again, here)


def _stats_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "index-stats"]


def test_no_stats_thread_outlives_the_opening_of_an_index(tmp_path: Path) -> None:
    """Current, updated, and a cache that cannot be read (rebuilt: the stats are not used). On this small
    ledger the thread ends before a rebuild would need it to, waited for or not: that ``_open_index`` waits
    for it before a rebuild (which may fork workers) is not shown here."""
    root = build_mini_ledger(tmp_path / "ledger")
    later = lambda: time.time_ns() + 60 * 10**9  # noqa: E731 - no file is racy at this clock
    statuses = []
    for step in ("rebuilt", "current", "updated", "corrupt"):
        if step == "updated":
            bench = root / "benchmarks" / "test-bench.md"
            bench.write_text(bench.read_text(encoding="utf-8") + "\nEdited.\n", encoding="utf-8")
        if step == "corrupt":
            db = current_db(root)
            assert db is not None
            db.write_bytes(b"not a duckdb file")
        index = open_index(root, clock=later)
        statuses.append(index.status.split()[0])
        index.close()
        assert _stats_threads() == [], step
    assert statuses == ["rebuilt", "current", "updated", "rebuilt"]
