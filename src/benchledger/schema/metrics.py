"""The metric vocabulary: names, canonical units, and which direction is better.

Definitions follow vLLM ``bench serve`` where one exists; a result may name a different
``definition`` (e.g. ``aiperf-itl``, ``guidellm-tpot-incl-ttft``) when its source used one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from benchledger.schema.units import conversion

MetricName = Literal[
    "output_throughput",
    "total_throughput",
    "prefill_throughput",
    "per_stream_throughput",
    "request_throughput",
    "ttft",
    "tpot",
    "itl",
    "itl_per_token",
    "e2e_latency",
    "completed_requests",
    "failed_requests",
    "memory",
    "energy_per_token",
]
Stat = Literal["value", "mean", "median", "p50", "p90", "p95", "p99", "min", "max", "std"]
CENTRAL_STATS: tuple[str, ...] = ("value", "mean", "median", "p50")
"""Statistics that stand for an arm's typical value (fits, bounds and speedup checks use only these)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class MetricInfo:
    """What one metric means and how to compare it.

    A dataclass, not a pydantic model: its values are this module's constants, never parsed input, and a
    model would build its validator whenever the schema is imported (~25 ms of CPU per command)."""

    name: str
    higher_is_better: bool
    units: tuple[str, ...]
    definition: str
    throughput_like: bool = False
    zero_allowed: bool = False
    """Counts and per-token gaps (ITL, TPOT) may be 0: a step's tokens can arrive together
    (ledger/benchmarks/h200-llama-cpp-…-k4.md, the llama.cpp demo); TTFT, e2e, sizes are > 0."""
    rate: bool = False
    """A per-second rate: 0 only when the arm completed no request."""

    def value_problem(self, value: float, unit: str, stat: str) -> str | None:
        """Why ``value unit`` cannot be this metric (wrong unit, or not positive), or None when it can. A rate
        of 0 passes here; the arm checks that it completed nothing (``zero_rate_problem``)."""
        if unit not in self.units:
            return f"{self.name} is measured in {' or '.join(self.units)}, not {unit!r}"
        zero_ok = self.zero_allowed or self.rate or stat in ("min", "std")
        if value < 0 or (value == 0 and not zero_ok):
            return f"{self.name} must be {'≥ 0' if self.zero_allowed else '> 0'}, got {value}"
        return None


def zero_rate_problem(results: list[tuple[str, float]]) -> str | None:
    """Why an arm's ``(metric, value)`` results are impossible: a rate of 0 (tok/s, req/s) is a measurement only
    of an arm that completed no request (as ``bench`` records an arm whose every request failed)."""
    completed = {value for metric, value in results if metric == "completed_requests"}
    for metric, value in results:
        if value == 0 and METRICS[metric].rate and completed != {0}:
            return f"{metric} is 0 but the arm does not report completed_requests: 0 (a rate of 0 measures nothing)"
    return None


METRICS: dict[str, MetricInfo] = {
    m.name: m
    for m in (
        MetricInfo(name="output_throughput", higher_is_better=True, units=("tok/s",), throughput_like=True,
                   rate=True,
                   definition="Σ output tokens of completed requests / measured window (aggregate over streams)."),
        MetricInfo(name="total_throughput", higher_is_better=True, units=("tok/s",), throughput_like=True,
                   rate=True,
                   definition="Σ (input + output) tokens / measured window."),
        MetricInfo(name="prefill_throughput", higher_is_better=True, units=("tok/s",),
                   rate=True,
                   definition="Σ input tokens / measured window (autobench 'prefill_toks')."),
        MetricInfo(name="per_stream_throughput", higher_is_better=True, units=("tok/s", "tok/s/user"), throughput_like=True,
                   rate=True,
                   definition="Decode tokens per second seen by one stream (≈ 1000 / TPOT ms)."),
        MetricInfo(name="request_throughput", higher_is_better=True, units=("req/s",),
                   rate=True,
                   definition="Completed requests / measured window."),
        MetricInfo(name="ttft", higher_is_better=False, units=("ms", "s", "us", "ns"),
                   definition="First chunk with generated content − send time."),
        MetricInfo(name="tpot", higher_is_better=False, units=("ms", "s", "us", "ns"), zero_allowed=True,
                   definition="Per request: (last token − first token) / (output tokens − tokens in first chunk)."),
        MetricInfo(name="itl", higher_is_better=False, units=("ms", "s", "us", "ns"), zero_allowed=True,
                   definition="Gap between consecutive chunks (per chunk, pooled over requests)."),
        MetricInfo(name="itl_per_token", higher_is_better=False, units=("ms", "s", "us", "ns"), zero_allowed=True,
                   definition="Chunk gap divided by the chunk's token delta (per token)."),
        MetricInfo(name="e2e_latency", higher_is_better=False, units=("ms", "s", "us", "ns"),
                   definition="Last generated token − send time, per request."),
        MetricInfo(name="completed_requests", higher_is_better=True, units=("requests",), zero_allowed=True,
                   definition="Requests completed inside the measured window."),
        MetricInfo(name="failed_requests", higher_is_better=False, units=("requests",), zero_allowed=True,
                   definition="Requests that ended in an error."),
        MetricInfo(name="memory", higher_is_better=False, units=("GB", "GiB", "MB", "MiB"),
                   definition="Memory in use as the source defines it (see the result's note)."),
        MetricInfo(name="energy_per_token", higher_is_better=False, units=("J/token",),
                   definition="Energy per generated token."),
    )
}

CANONICAL_UNITS: dict[str, str] = {"time": "ms", "bytes": "GB"}
"""Dimension → the unit the index compares values in (units of other dimensions are already canonical)."""


OUTCOME_BAND = 0.02
"""The one neutral band for speculative outcomes: a speedup within ±2 % of 1.0 is 'no clear change' (below what
single-run public sources can resolve). Used by the ``spec_outcomes`` view (as the SQL macro ``outcome_band()``),
the site and ``advise``."""
OUTCOMES = ("benefit", "harm", "no clear change")


def spec_outcome(speedup: float) -> str:
    """'benefit' above 1 + ``OUTCOME_BAND``, 'harm' below 1 − ``OUTCOME_BAND``, else 'no clear change'."""
    if speedup > 1.0 + OUTCOME_BAND:
        return "benefit"
    if speedup < 1.0 - OUTCOME_BAND:
        return "harm"
    return "no clear change"


def to_canonical(value: float, unit: str) -> tuple[float, str]:
    """Convert a value to the canonical unit of its dimension (ms for time, GB for memory)."""
    for canon in CANONICAL_UNITS.values():
        factor = conversion(unit, canon)
        if factor is not None:
            return value * factor, canon
    return value, unit


__all__ = [
    "CANONICAL_UNITS",
    "METRICS",
    "OUTCOMES",
    "OUTCOME_BAND",
    "MetricInfo",
    "MetricName",
    "Stat",
    "spec_outcome",
    "to_canonical",
    "zero_rate_problem",
]
