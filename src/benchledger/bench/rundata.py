"""Typed run data: one request's raw record, one scrape's counters, one arm's summary.

``RequestRecord`` is one line of ``requests.jsonl`` (times in seconds since the run's clock origin);
``CounterSnapshot`` is one ``/metrics`` scrape normalised (``bench.scrape``); ``Summary`` is an arm's
``summary.json`` at one load point, versioned by ``schema_version``. The pure metric functions in
``benchledger.metrics`` read records and snapshots as mappings: pass ``model_dump()``. A summary keeps every
metric key ``benchledger.metrics.summarize`` produces (extra keys are allowed and kept as they are).
"""

from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

SUMMARY_SCHEMA_VERSION: Literal[2] = 2
"""1: ``*_tpot_ms`` was benchledger's decode interval and TPOT/E2E ended at the end of the HTTP body. 2: ``*_tpot_ms``
and ``*_e2el_ms`` carry vLLM's definitions, ending at the last content chunk; benchledger's decode interval is
``*_tpot_after_first_chunk_ms`` (``benchledger.metrics``)."""

Phase = Literal["warmup", "measured", "probe"]


class ResponseSpec(BaseModel):
    """Per-response speculative-decoding counts as the server reported them (validated integers)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["llamacpp-timings", "vllm-per-request"]
    draft_tokens: int | None = None
    accepted_tokens: int | None = None
    drafts: int | None = None


class RequestRecord(BaseModel):
    """One request: raw arrival times of its content chunks, token counts, outcome and where it ran."""

    model_config = ConfigDict(extra="forbid", validate_assignment=False, ser_json_inf_nan="null")

    t_start: float
    t_sent: float | None = None
    t_end: float | None = None
    http_status: int | None = None
    chunk_times: list[float] = Field(default_factory=list)
    """Arrival of each chunk carrying generated text of any kind (answer or reasoning)."""
    chunk_tokens: list[int] = Field(default_factory=list)
    chunk_token_source: Literal["counted", "continuous_usage"] = "counted"
    output_tokens: int = 0
    output_tokens_source: Literal["counted", "usage"] = "counted"
    input_tokens: int | None = None
    t_first_answer: float | None = None
    """Arrival of the first chunk with answer text (not reasoning); set only when the stream carried reasoning."""
    reasoning_chunks: int = 0
    finish_reason: str | None = None
    spec: ResponseSpec | None = None
    response_id: str | None = None
    error: str | None = None
    ok: bool = False
    phase: Phase = "measured"
    round: int = 0
    point: str = ""
    arm: str = ""
    prompt_index: int = 0
    seq: int = 0
    request_seed: int | None = None
    prompt_input_tokens: int | None = None


class CounterSnapshot(BaseModel):
    """One ``/metrics`` scrape normalised: speculative counters summed over series, gauges, process start."""

    model_config = ConfigDict(extra="forbid")

    family: str | None = None
    drafts: float | None = None
    draft_tokens: float | None = None
    accepted: float | None = None
    per_position: dict[str, float] = Field(default_factory=dict)
    generated_tokens: float | None = None
    gauges: dict[str, float] = Field(default_factory=dict)
    process_start_time: float | None = None
    """``process_start_time_seconds`` when the server exports it: a change between scrapes means a restart."""

    def counters(self) -> dict[str, float]:
        """Every monotonic counter of the snapshot by name (per-position ones as ``per_position[i]``)."""
        out = {k: v for k in ("drafts", "draft_tokens", "accepted", "generated_tokens")
               if (v := getattr(self, k)) is not None}
        out.update({f"per_position[{p}]": v for p, v in self.per_position.items()})
        return out


def counter_reset(before: CounterSnapshot, after: CounterSnapshot) -> str | None:
    """Why the window between two scrapes is not a valid counter window (a restart), or None when it is."""
    if (before.process_start_time is not None and after.process_start_time is not None
            and before.process_start_time != after.process_start_time):
        return (f"process start time changed ({before.process_start_time:g} → {after.process_start_time:g}): "
                "the engine restarted during the window")
    low = after.counters()
    went_back = sorted(name for name, value in before.counters().items() if name in low and low[name] < value)
    if went_back:
        return f"counter(s) went backwards between scrapes ({', '.join(went_back)}): the engine restarted"
    return None


class Summary(BaseModel):
    """An arm's ``summary.json`` at one load point. Metric keys from ``benchledger.metrics`` ride as extras."""

    model_config = ConfigDict(extra="allow")

    schema_version: Literal[1, 2] = SUMMARY_SCHEMA_VERSION
    arm: str
    load_point: str
    max_concurrency: int | None = None
    request_rate: float | None = None
    completed: int
    failed: int
    complete: bool
    stopped_by: str
    speculative: dict[str, Any] | None = None
    warmup_requests: int = 0
    errors_by_reason: dict[str, int] = Field(default_factory=dict)
    complete_rounds: list[int] = Field(default_factory=list)
    chunk_token_sources: list[str] = Field(default_factory=list)
    output_token_sources: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    definitions: dict[str, str] = Field(default_factory=dict)
    client_overhead: dict[str, Any] = Field(default_factory=dict)
    spec_decode_counter_family: str | None = None
    spec_decode_counter_window: Literal["valid", "reset", "unavailable"] = "unavailable"
    spec_decode_from_responses: dict[str, Any] | None = None
    prompt_source: str | None = None
    """How prompt lengths are known (``server-tokenize``, an approximation, a prompt file)."""

    def __getitem__(self, key: str) -> Any:
        """A field or metric key's value by name (metric keys are extras): ``summary["median_ttft_ms"]``."""
        if key in type(self).model_fields:
            return getattr(self, key)
        extra = self.model_extra or {}
        if key not in extra:
            raise KeyError(key)
        return extra[key]

    def get(self, key: str, default: Any = None) -> Any:
        """Like ``dict.get``."""
        try:
            return self[key]
        except KeyError:
            return default

    def flat(self) -> dict[str, Any]:
        """All keys as plain JSON-ready values (non-finite floats → None)."""
        flat: dict[str, Any] = _finite(self.model_dump())
        return flat

    @property
    def error_rate(self) -> float | None:
        """Failed / (completed + failed), or None when nothing was measured."""
        total = self.completed + self.failed
        return self.failed / total if total else None


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


__all__ = [
    "SUMMARY_SCHEMA_VERSION",
    "CounterSnapshot",
    "Phase",
    "RequestRecord",
    "ResponseSpec",
    "Summary",
    "counter_reset",
]
