"""Starting a thread whole: Ctrl-C held off until it runs.

``Thread.start`` waits for the new thread to say it has started; a Ctrl-C raised in that wait leaves a thread
that runs while its owner believes it never started (``is_alive`` is False until it says so, ``join`` refuses
it), so the owner's clean-up lets it go on using what that clean-up closes (the index build's pipes and
database: a second ``close`` of a pipe's file descriptor, tests/integration/test_index_cold.py). Used by
every thread of the index (``loading.py``, ``dbfiles.py``)."""

from __future__ import annotations

import signal
import threading


def start_whole(thread: threading.Thread) -> None:
    """Start ``thread`` with SIGINT blocked until it has started; a Ctrl-C that came meanwhile is raised after,
    when the thread is running (and can be stopped and joined like any other). The thread keeps SIGINT blocked
    (a new thread inherits the mask): Python handles signals in the main thread only, and the kernel then
    delivers Ctrl-C there."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        thread.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a Ctrl-C held off is raised here


__all__ = ["start_whole"]
