"""Threads of the index started whole (catalog/threads.py): a Ctrl-C that comes while one starts is raised once
it runs, so its owner can stop and join it; the thread itself never takes SIGINT."""

from __future__ import annotations

import signal
import threading

import pytest

from benchledger.catalog.threads import start_whole


def test_a_ctrl_c_while_a_thread_starts_is_raised_once_it_runs() -> None:
    main = threading.get_ident()
    release = threading.Event()
    masks: list[set[signal.Signals]] = []

    def target() -> None:
        masks.append(signal.pthread_sigmask(signal.SIG_BLOCK, []))
        signal.pthread_kill(main, signal.SIGINT)  # (Ctrl-C, as the thread starts)
        release.wait(60)

    thread = threading.Thread(target=target)
    with pytest.raises(KeyboardInterrupt):
        start_whole(thread)
        release.wait(60)  # (the Ctrl-C is raised by start_whole as it unblocks SIGINT, or here if it came after)
    try:
        assert thread.is_alive() and thread.ident is not None  # (its owner can stop it and join it)
    finally:
        release.set()
        thread.join(60)
    assert not thread.is_alive()
    assert masks and signal.SIGINT in masks[0]  # (the kernel gives Ctrl-C to the main thread)
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # (unblocked here again)
