"""The cyclic garbage collector's policy while many small objects are built: paused, or frozen for the rest of a
short-lived process. Imports nothing of ours: the cached index's warm path (``catalog/cache.py``) uses it too."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC while building many small objects (it would rescan them over and over)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def freeze_for_process() -> None:
    """Move every object alive now out of the cyclic collector's reach (``gc.freeze``).

    For short-lived processes (the CLI) after loading a big ledger or opening its index: otherwise the collector
    rescans every record (or every module, schema and row the index needed) on each full collection, and once
    more when the interpreter exits (~0.15 CPU-s after an update of the cached index at 10,000 records,
    benchmarks/ledger_scale.py). Frozen objects are still freed by reference counting. Library code never calls
    this; it is a process-wide policy. Call it before a pause (``gc_paused``) ends: the collector resumes with
    everything made during the pause in its youngest generation, and its next collection would examine all of it
    (165,000 objects after loading the shipped ledger; tests/integration/test_cli_dispatch.py).
    """
    gc.freeze()


__all__ = ["freeze_for_process", "gc_paused"]
