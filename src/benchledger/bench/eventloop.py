"""Which event loop a run uses: uvloop's where it is installed (the default), else asyncio's.

uvloop is a base dependency wherever it builds (not on Windows). It runs the same protocol and timestamps on
libuv. In ``benchmarks/client_overhead.py --step 0.01 --clients ours,vllm,ours-asyncio`` (four runs on a loaded
2-core machine) it cost 0.68-1.08x asyncio's client CPU per token at 64-512 streams (median about 0.9x) and
0.72-0.89x at one stream, with no consistent difference in timing error; ``--event-loop asyncio`` opts out. The
loop used is written into every summary (``client_overhead.event_loop``)."""

from __future__ import annotations

import asyncio
import importlib.util
from collections.abc import Coroutine
from typing import Any, Literal, TypeVar

from benchledger.errors import BenchError

EventLoop = Literal["asyncio", "uvloop"]
EVENT_LOOPS: tuple[EventLoop, ...] = ("asyncio", "uvloop")
T = TypeVar("T")


def default_event_loop() -> EventLoop:
    """uvloop when it can be imported, else asyncio."""
    return "uvloop" if importlib.util.find_spec("uvloop") is not None else "asyncio"


def run(main: Coroutine[Any, Any, T], event_loop: EventLoop = "asyncio") -> T:
    """``asyncio.run(main)`` on the chosen loop; BenchError when uvloop is asked for and not installed."""
    if event_loop == "uvloop":
        try:
            import uvloop
        except ImportError:
            main.close()
            raise BenchError("--event-loop uvloop needs uvloop (pip install uvloop), which does not build on "
                             "Windows; use --event-loop asyncio") from None
        return uvloop.run(main)
    return asyncio.run(main)


__all__ = ["EVENT_LOOPS", "EventLoop", "default_event_loop", "run"]
