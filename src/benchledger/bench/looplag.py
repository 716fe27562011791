"""Event-loop lag: how late a periodic sleeper wakes while a load point runs — the client's own delay.

Every chunk timestamp is taken when the event loop gets round to the socket; if the loop is busy (parsing,
writing records, too many streams for one core) that moment comes late and TTFT/ITL are inflated by the
client, not the server. ``LoopLagMonitor`` sleeps ``interval`` seconds in a loop and records each wake-up's
overshoot; ``lag_summary`` reduces the samples that fall inside an arm's measured rounds to median / p99 / max
and warns above ``LAG_WARN_P99_MS``. An idle loop overshoots by up to ~1 ms by itself (``epoll`` timeouts are
rounded up to whole milliseconds), so sub-millisecond values mean "no lag".
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from benchledger.metrics import percentile

LAG_INTERVAL_S = 0.02
LAG_WARN_P99_MS = 5.0
DEFINITION = (f"overshoot of a {LAG_INTERVAL_S * 1000:g} ms asyncio sleep, sampled during this arm's measured "
              "rounds; includes up to ~1 ms of epoll timeout rounding when idle")


class LoopLagMonitor:
    """Collects ``(t, lag)`` samples (seconds; ``t`` relative to ``origin``) while started."""

    def __init__(self, origin: float, interval: float = LAG_INTERVAL_S) -> None:
        self.origin = origin
        self.interval = interval
        self.samples: list[tuple[float, float]] = []
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        clock, interval, samples = time.perf_counter, self.interval, self.samples
        while True:
            due = clock() + interval
            await asyncio.sleep(interval)
            now = clock()
            samples.append((now - self.origin, now - due))

    def start(self) -> None:
        """Start sampling on the running loop."""
        if self._task is None:
            self._task = asyncio.ensure_future(self._run())

    async def stop(self) -> None:
        """Stop sampling (samples are kept)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None


def measured_windows(records: Iterable[Mapping[str, Any]]) -> list[tuple[float, float]]:
    """Per round, (first start, last end) of the given records — when this arm had requests in flight."""
    spans: dict[Any, tuple[float, float]] = {}
    for rec in records:
        lo_t, hi_t = rec.get("t_start"), rec.get("t_end")
        if lo_t is None or hi_t is None:
            continue
        key = rec.get("round", 0)
        lo, hi = spans.get(key, (lo_t, hi_t))
        spans[key] = (min(lo, lo_t), max(hi, hi_t))
    return sorted(spans.values())


def lag_summary(samples: Sequence[tuple[float, float]], windows: Sequence[tuple[float, float]]) -> dict[str, Any]:
    """Median / p99 / max lag (ms) of the samples inside ``windows``; Nones when there are none."""
    inside = [lag for t, lag in samples if any(lo <= t <= hi for lo, hi in windows)]
    if not inside:
        return {"loop_lag_ms_median": None, "loop_lag_ms_p99": None, "loop_lag_ms_max": None,
                "loop_lag_samples": 0}
    ms = [max(v, 0.0) * 1000.0 for v in inside]
    return {
        "loop_lag_ms_median": percentile(ms, 50),
        "loop_lag_ms_p99": percentile(ms, 99),
        "loop_lag_ms_max": max(ms),
        "loop_lag_samples": len(ms),
        "loop_lag_definition": DEFINITION,
    }


def lag_warning(summary: Mapping[str, Any], threshold_ms: float = LAG_WARN_P99_MS) -> str | None:
    """A warning when the p99 loop lag exceeds ``threshold_ms``."""
    p99 = summary.get("loop_lag_ms_p99")
    if p99 is None or p99 <= threshold_ms:
        return None
    return (f"client event-loop lag: p99 {p99:.1f} ms, max {summary['loop_lag_ms_max']:.1f} ms (threshold "
            f"{threshold_ms:g} ms) — chunk timestamps may be that late; TTFT/ITL include client delay. Lower the "
            "concurrency or give the client an idle core")


__all__ = ["LAG_INTERVAL_S", "LAG_WARN_P99_MS", "LoopLagMonitor", "lag_summary", "lag_warning", "measured_windows"]
