"""The record files' stats, taken in a background thread while the cached index's database opens.

Every command that finds a cache stats every record file (``scan.current_stats``: ~60-100 ms at 10,000
records), and DuckDB first starts and attaches the database (~50-100 ms), running its C++ without holding the
GIL. Both at once take the longer of the two, not their sum: measured at 10,000 records, ~140 ms for both
against ~205 ms one after the other (``cache._open_index``, benchmarks/ledger_scale.py).

Which folders hold the records is in the cache's metadata, not known until the database is open, so the
thread stats the files of every top-level folder of the ledger (a few files more: ``.git/``'s, the cache's)
and ``current_stats`` keeps the folders named. It starts after the scan's clock was read, as
``current_stats`` would run: the stats are as fresh for the racy-file rule (``scan.py``)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from benchledger.catalog.scan import Stat, current_stats, folder_stats, stats_of
from benchledger.catalog.threads import start_whole


class StatsAhead:
    """``current_stats`` of a ledger, taken ahead (``start_whole``: a Ctrl-C cannot leave it half started)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._found: dict[str, list[Stat]] | None = None
        self._thread = threading.Thread(target=self._take, name="index-stats", daemon=True)
        start_whole(self._thread)

    def _take(self) -> None:
        try:
            with os.scandir(self.root) as it:
                folders = [e.name for e in it if e.is_dir()]
            self._found = folder_stats(self.root, folders)
        except OSError:  # (taken again by ``current_stats``, which then raises it where it can be handled)
            pass

    def current_stats(self, folders: list[str]) -> tuple[str, list[Stat]]:
        """``scan.current_stats(root, folders)``, from the stats taken ahead."""
        self.wait()
        if self._found is None:
            return current_stats(self.root, folders)
        return stats_of(self._found, folders)

    def wait(self) -> None:
        """Until the thread has ended (it only reads; a few hundred ms at most on a local disk)."""
        self._thread.join()


__all__ = ["StatsAhead"]
