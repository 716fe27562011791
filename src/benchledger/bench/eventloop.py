"""Which event loop a run uses: asyncio's (default) or uvloop's (opt-in, the ``fast`` extra).

uvloop runs the same protocol and timestamps on libuv; ``benchmarks/client_overhead.py --clients
ours,vllm,ours-uvloop`` measured it at about 10 % less client CPU per token (c = 64 and 256, medians of five
alternating runs on a loaded 2-core machine) with no clear change in timing error, so it is offered, never
required. The loop used is written into every summary (``client_overhead.event_loop``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Literal, TypeVar

from benchledger.errors import BenchError

EventLoop = Literal["asyncio", "uvloop"]
EVENT_LOOPS: tuple[EventLoop, ...] = ("asyncio", "uvloop")
T = TypeVar("T")


def run(main: Coroutine[Any, Any, T], event_loop: EventLoop = "asyncio") -> T:
    """``asyncio.run(main)`` on the chosen loop; BenchError when uvloop is asked for and not installed."""
    if event_loop == "uvloop":
        try:
            import uvloop
        except ImportError:
            main.close()
            raise BenchError("--event-loop uvloop needs uvloop: pip install 'benchledger[fast]'") from None
        return uvloop.run(main)
    return asyncio.run(main)


__all__ = ["EVENT_LOOPS", "EventLoop", "run"]
