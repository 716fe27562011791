"""Benchmark records: one experiment = a shared subject + workload, and arms that differ in declared fields.

An arm states only what differs from the record-level subject/workload (``subject``/``workload`` overrides,
``speculative``), its results and its acceptance. Comparisons (speedup vs the arm named in ``baseline``) are
derived by code in the index, never typed. A percentage the source states is kept as a ``QuotedChange`` so
the audit can check it against the derived one.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from benchledger.schema.common import RecordBase
from benchledger.schema.metrics import METRICS, MetricName, Stat, zero_rate_problem
from benchledger.schema.provenance import (
    SLUG_PATTERN,
    Condition,
    Quantity,
    StrictModel,
    UnknownReason,
)

Scenario = Literal["per-request", "fixed-concurrency", "request-rate", "offline", "unknown"]
MeasuredBy = Literal["benchledger", "self", "third-party", "vendor"]
SPEC_METHODS = ("mtp", "eagle", "eagle3", "draft-model", "ngram", "dflash", "dspark", "medusa", "suffix", "other")


class Parallelism(StrictModel):
    """Tensor / pipeline / expert / data parallel sizes."""

    tp: Condition | None = None
    pp: Condition | None = None
    ep: Condition | None = None
    dp: Condition | None = None


class SubjectOverride(StrictModel):
    """Subject fields an arm may change."""

    weights: Condition | None = Field(default=None, description="Weight format id (formats/).")
    kv_cache: Condition | None = Field(default=None, description="KV-cache format id (formats/).")
    engine_version: Condition | None = None
    engine_flags: Condition | None = None
    image: Condition | None = None
    accelerator_count: Condition | None = None
    parallelism: Parallelism | None = None


class Subject(SubjectOverride):
    """What was measured: model, format, engine, hardware."""

    model: str = Field(pattern=SLUG_PATTERN, description="Model id (models/).")
    engine: str = Field(pattern=SLUG_PATTERN, description="Engine id (engines/).")
    accelerator: str = Field(pattern=SLUG_PATTERN, description="Accelerator id (accelerators/).")
    accelerator_alternates: list[str] = Field(
        default_factory=list, description="Other accelerator ids the source's wording does not rule out."
    )
    interconnects: list[str] = Field(default_factory=list, description="Interconnect ids present in the system.")
    host: Condition | None = None


class WorkloadOverride(StrictModel):
    """Workload fields an arm may change."""

    scenario: Scenario | None = None
    input_tokens: Condition | None = None
    output_tokens: Condition | None = None
    concurrency: Condition | None = None
    batch_size: Condition | None = None
    request_rate: Condition | None = None
    num_prompts: Condition | None = None
    max_seconds: Condition | None = None
    warmup: Condition | None = None
    temperature: Condition | None = None
    prefix_caching: Condition | None = None
    max_model_len: Condition | None = None
    dataset: Condition | None = None
    ignore_eos: Condition | None = None
    ttft_limit_ns: Condition | None = Field(default=None, description="p99 TTFT limit the result holds under, "
                                            "ns (MLPerf Server/Interactive); absent when none applies.")
    tpot_limit_ns: Condition | None = Field(default=None, description="p99 TPOT limit the result holds under, "
                                            "ns (MLPerf Server/Interactive); absent when none applies.")


class Workload(WorkloadOverride):
    """How the engine was driven."""

    scenario: Scenario = "unknown"


class Speculative(StrictModel):
    """Speculative decoding of an arm."""

    method: str = Field(pattern=SLUG_PATTERN, description=f"One of {', '.join(SPEC_METHODS)}.")
    k: Condition = Field(description="Draft tokens per step (num_speculative_tokens / n_max).")
    draft: Condition | None = Field(default=None, description="Draft model or head, when separate.")
    config: Condition | None = Field(default=None, description="Engine flag text, e.g. --speculative-config.")


class Result(Quantity):
    """One reported number of an arm."""

    metric: MetricName
    stat: Stat = "value"
    definition: str | None = Field(default=None, description="When not benchledger's: e.g. 'aiperf-itl'.")

    @model_validator(mode="after")
    def _fits_metric(self) -> Result:
        problem = METRICS[self.metric].value_problem(self.value, self.unit, self.stat)
        if problem:
            raise ValueError(problem)
        return self


class Acceptance(StrictModel):
    """Speculative acceptance of an arm, with the definition used."""

    rate: Quantity | None = Field(default=None, description="accepted / drafted tokens (fraction 0..1 or %).")
    mean_length: Quantity | None = Field(default=None, description="1 + accepted / drafts (bonus included).")
    mean_length_min: Quantity | None = Field(
        default=None, description="Low end, when the source gives the mean length only as a range (with _max)."
    )
    mean_length_max: Quantity | None = Field(default=None, description="High end of that range (with _min).")
    per_position: list[Quantity] = Field(default_factory=list, description="Unconditional survival per position.")
    definition: str = Field(
        default="", description="e.g. 'vllm-counters-windowed', 'vllm-log-last-20-windows', 'source-text'."
    )
    window: str | None = None
    unknown: UnknownReason | None = Field(default=None, description="Set when no acceptance is known, and why.")
    note: str = ""

    @model_validator(mode="after")
    def _stated_or_unknown(self) -> Acceptance:
        low, high = self.mean_length_min, self.mean_length_max
        if (low is None) != (high is None):
            raise ValueError("a mean-length range needs both 'mean_length_min' and 'mean_length_max'")
        if low is not None and high is not None:
            if self.mean_length is not None:
                raise ValueError("give 'mean_length' or a range (mean_length_min/_max), not both")
            if low.value > high.value:
                raise ValueError(f"mean_length_min {low.value} is above mean_length_max {high.value}")
        stated = (self.rate is not None or self.mean_length is not None or low is not None
                  or bool(self.per_position))
        if stated and self.unknown:
            raise ValueError("acceptance values are given, so 'unknown' must not be set")
        if not stated and not self.unknown:
            raise ValueError("give rate, mean_length or per_position, or 'unknown: source_omits|unchecked'")
        if stated and not self.definition:
            raise ValueError("say which acceptance definition the values use ('definition')")
        return self

    @field_validator("rate")
    @classmethod
    def _rate_in_range(cls, rate: Quantity | None) -> Quantity | None:
        if rate is not None:
            _check_rate("rate", rate)
        return rate

    @field_validator("per_position")
    @classmethod
    def _per_position_in_range(cls, rates: list[Quantity]) -> list[Quantity]:
        for index, rate in enumerate(rates):
            _check_rate(f"per_position.{index}", rate)
        return rates

    @field_validator("mean_length", "mean_length_min", "mean_length_max")
    @classmethod
    def _mean_length_counts_tokens(cls, length: Quantity | None) -> Quantity | None:
        if length is not None and (length.unit != "tokens" or length.value < 1):
            raise ValueError(f"mean_length counts tokens per step (bonus token included): 'tokens', ≥ 1, "
                             f"got {length.value} {length.unit!r}")
        return length


_RATE_RANGE = {"fraction": 1.0, "%": 100.0}


def _check_rate(label: str, item: Quantity) -> None:
    """An acceptance rate is a fraction in [0, 1] or a percentage in [0, 100]."""
    top = _RATE_RANGE.get(item.unit)
    if top is None:
        raise ValueError(f"{label}: an acceptance rate is a 'fraction' (0..1) or '%' (0..100), not {item.unit!r}")
    if not 0 <= item.value <= top:
        raise ValueError(f"{label}: {item.value} {item.unit} is outside [0, {top:g}]")


class QuotedChange(StrictModel):
    """A percentage change vs the baseline arm as the source states it (checked against the derived one)."""

    metric: MetricName
    stat: Stat = "value"
    percent: Quantity

    @field_validator("percent")
    @classmethod
    def _is_percent(cls, percent: Quantity) -> Quantity:
        if percent.unit != "%" or percent.value <= -100:
            raise ValueError(f"a change in '%' above -100, got {percent.value} {percent.unit!r}")
        return percent


class PairedSpeedup(StrictModel):
    """Derived by ``benchledger bench`` (``bench/compare.py``): the arm's speedup over its baseline from the
    paired rounds, with a bootstrap 95 % CI — the number the bench CLI prints, next to the whole-window one."""

    metric: Literal["output_throughput", "tpot"]
    estimate: float = Field(gt=0)
    ci95: list[float] | None = Field(default=None, min_length=2, max_length=2,
                                     description="[low, high] percentile interval; None below 3 paired rounds.")
    paired_rounds: int = Field(ge=0)
    method: str = Field(min_length=1)


class Arm(StrictModel):
    """One configuration of the experiment and what it measured."""

    name: str = Field(pattern=SLUG_PATTERN)
    baseline: str | None = Field(default=None, description="Name of the arm this one is compared against.")
    speculative: Speculative | None = None
    subject: SubjectOverride | None = None
    workload: WorkloadOverride | None = None
    results: list[Result] = Field(default_factory=list)
    acceptance: Acceptance | None = None
    quoted_changes: list[QuotedChange] = Field(default_factory=list)
    paired_speedups: list[PairedSpeedup] = Field(
        default_factory=list, description="Derived, optional: speedups over the baseline from paired rounds with "
        "their 95 % CI (benchledger bench); the comparisons view gives the whole-window ratio.")
    note: str = ""

    @field_validator("results")
    @classmethod
    def _rates_measure_something(cls, results: list[Result]) -> list[Result]:
        problem = zero_rate_problem([(r.metric, float(r.value)) for r in results])
        if problem:
            raise ValueError(problem)
        return results


class Benchmark(RecordBase):
    """An experiment: one setup, several arms."""

    kind: Literal["benchmark"]
    measured_by: MeasuredBy
    subject: Subject
    workload: Workload
    arms: list[Arm] = Field(min_length=1)
    contests: list[str] = Field(default_factory=list, description="Benchmark ids whose values disagree with this.")
    complete: bool = Field(default=True, description="False for a measured run that was interrupted before its "
                           "end (benchledger bench --record-incomplete); the audit flags it (measured.incomplete).")

    @model_validator(mode="after")
    def _arm_names_unique(self) -> Benchmark:
        seen: set[str] = set()
        for arm in self.arms:
            if arm.name in seen:
                raise ValueError(f"arm name {arm.name!r} appears twice")
            seen.add(arm.name)
        return self


__all__ = [
    "SPEC_METHODS",
    "Acceptance",
    "Arm",
    "Benchmark",
    "MeasuredBy",
    "PairedSpeedup",
    "Parallelism",
    "QuotedChange",
    "Result",
    "Scenario",
    "Speculative",
    "Subject",
    "SubjectOverride",
    "Workload",
    "WorkloadOverride",
]
