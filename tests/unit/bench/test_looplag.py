"""Event-loop lag: the monitor sees a blocked loop; the summary keeps only samples in the arm's rounds."""

from __future__ import annotations

import asyncio
import time

from benchledger.bench.looplag import (
    LAG_WARN_P99_MS,
    LoopLagMonitor,
    lag_summary,
    lag_warning,
    measured_windows,
)


class SignallingSamples(list[tuple[float, float]]):
    """The monitor's sample list, announcing each new sample (the test waits on it, never on time)."""

    def __init__(self) -> None:
        super().__init__()
        self.added = asyncio.Event()

    def append(self, item: tuple[float, float]) -> None:
        super().append(item)
        self.added.set()

    async def until(self, n: int) -> None:
        async with asyncio.timeout(30):
            while len(self) < n:
                self.added.clear()
                await self.added.wait()


def test_monitor_sees_a_blocked_loop() -> None:
    """Block the loop for 50 ms once the monitor is sampling; the first wake-up after it is ≥ 45 ms late
    (its due time was at most one 5 ms interval after the block began)."""

    async def main() -> tuple[list[tuple[float, float]], int]:
        mon = LoopLagMonitor(origin=time.perf_counter(), interval=0.005)
        samples = mon.samples = SignallingSamples()
        mon.start()
        await samples.until(2)
        blocked_at = len(samples)
        time.sleep(0.05)  # noqa: ASYNC251  (deliberately blocks the loop)
        await samples.until(blocked_at + 1)
        await mon.stop()
        return list(samples), blocked_at

    samples, blocked_at = asyncio.run(main())
    assert samples[blocked_at][1] >= 0.045


def test_summary_uses_only_samples_inside_windows() -> None:
    records = [{"t_start": 1.0, "t_end": 2.0, "round": 0}, {"t_start": 1.5, "t_end": 3.0, "round": 0},
               {"t_start": 10.0, "t_end": 11.0, "round": 1}, {"t_start": None, "t_end": None, "round": 2}]
    windows = measured_windows(records)
    assert windows == [(1.0, 3.0), (10.0, 11.0)]
    samples = [(0.5, 0.5), (1.2, 0.001), (2.5, 0.003), (5.0, 0.9), (10.5, 0.002)]
    s = lag_summary(samples, windows)
    assert s["loop_lag_samples"] == 3
    assert s["loop_lag_ms_median"] == 2.0 and s["loop_lag_ms_max"] == 3.0
    assert lag_warning(s) is None


def test_warning_above_threshold_and_empty_summary() -> None:
    s = lag_summary([(1.0, 0.001)] * 50 + [(1.0, 0.05)] * 5, [(0.0, 2.0)])
    assert s["loop_lag_ms_p99"] > LAG_WARN_P99_MS
    warning = lag_warning(s)
    assert warning is not None and warning.startswith("client event-loop lag")
    empty = lag_summary([], [(0.0, 1.0)])
    assert empty["loop_lag_ms_p99"] is None and lag_warning(empty) is None
