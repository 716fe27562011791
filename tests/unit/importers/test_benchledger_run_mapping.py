"""The one summary → results mapping (``importers/benchledger_run.py``): what an arm's summary becomes."""

from __future__ import annotations

from typing import Any

from benchledger.importers.benchledger_run import summary_results


def _make(metric: str, stat: str, value: Any, unit: str) -> tuple[str, str, Any, str]:
    return (metric, stat, value, unit)


def test_an_arm_that_completed_nothing_has_no_results() -> None:
    # every request failed: the summary's rates are 0 over nothing measured, never a measured 0 tok/s
    summary = {"completed": 0, "failed": 4, "output_throughput": 0.0, "request_throughput": 0.0}
    assert summary_results(summary, _make) == []  # type: ignore[arg-type]


def test_a_completed_arm_maps_its_finite_values_only() -> None:
    summary = {"completed": 4, "output_throughput": 120.5, "request_throughput": float("nan")}
    metrics = {m for m, *_ in summary_results(summary, _make)}  # type: ignore[arg-type]
    assert "output_throughput" in metrics and "request_throughput" not in metrics
