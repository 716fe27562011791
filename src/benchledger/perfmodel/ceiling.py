"""The physical ceiling of a benchmark arm: no configuration of this hardware can decode faster.

For ``D`` devices of bandwidth ``BW`` and peak ``P``, one step over ``B`` sequences that yields at most ``T``
tokens each (T = k+1 with k drafts, else 1) takes at least

    t_min = max( bytes(B) / (D·BW), flops(B) / (D·P) )

with every term at its strict lower bound: weights at the arm's format (MoE: only k_e experts per layer), the
lm_head in the same format, KV at the arm's input length (0 when unknown), recurrent state read and written once,
no draft cost, no overhead, perfect overlap and perfect sharding over all D devices. Hence
per-stream tok/s ≤ T / t_min(B), aggregate tok/s ≤ B·T / t_min(B), TPOT ≥ t_min(B) / T.
A needed input that is unknown (model, hardware, device count, weight format, k) gives ``None`` with a reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchledger.ledger.store import Ledger
from benchledger.perfmodel.architecture import ModelSpec, model_from_record
from benchledger.perfmodel.bounds import NA_CONCURRENCY_UNKNOWN, bound_name
from benchledger.perfmodel.errors import MissingInputError
from benchledger.perfmodel.formats import format_from_record
from benchledger.perfmodel.hardware import HardwareSpec
from benchledger.perfmodel.recordvalues import arm_concurrency, format_spec, hardware_spec, number, text
from benchledger.schema import (
    Arm,
    Benchmark,
    Format,
    ModelArch,
    Result,
    effective_subject,
    effective_workload,
)
from benchledger.schema.units import conversion

THROUGHPUT_METRICS = ("output_throughput", "per_stream_throughput")
LATENCY_METRICS = ("tpot",)
CHECKED_METRICS = THROUGHPUT_METRICS + LATENCY_METRICS
FALLBACK_KV_BYTES = 0.5


@dataclass(frozen=True)
class Ceiling:
    """The bound for one arm and how it was computed."""

    tok_s_per_stream: float
    aggregate_tok_s: float | None
    tpot_ms: float
    step_ms: float
    query_tokens: int
    notes: tuple[str, ...] = ()
    limiting: str = "memory"
    """Which side sets the bound: 'memory' (bytes / (D·BW)) or 'compute' (FLOPs / (D·P))."""
    aggregate_any_batch: bool = False
    """The aggregate bound is from compute alone (concurrency unknown): a true bound, but no efficiency."""
    speculative: bool = False

    def bound_for(self, metric: str) -> float | None:
        """The ceiling in the metric's own unit (tok/s or ms); None when not checkable."""
        if metric == "output_throughput":
            return self.aggregate_tok_s
        if metric == "per_stream_throughput":
            return self.tok_s_per_stream
        if metric == "tpot":
            return self.tpot_ms
        return None

    def bound_name(self, metric: str) -> str:
        """The ceiling's one name (``bound_name``) for a metric of this arm."""
        name = bound_name(metric, draft_cost=False if self.speculative else None)
        return name + " from compute alone" if metric == "output_throughput" and self.aggregate_any_batch else name

    def not_applicable(self, metric: str) -> str:
        """Why a result against this bound is no efficiency ('' when it is one)."""
        return NA_CONCURRENCY_UNKNOWN if metric == "output_throughput" and self.aggregate_any_batch else ""


def step_bounds(model: ModelSpec, *, batch: float, context: float, query_tokens: int, weight_bytes: float,
                kv_bytes: float, devices: int, bandwidth: float, peak: float | None) -> tuple[float, float]:
    """``(t_memory, t_compute)`` in seconds: the two sides of the bound (see the module docstring)."""
    tokens = batch * query_tokens
    data = model.body_params_streamed(tokens, "min") * weight_bytes + model.lm_head_params * weight_bytes
    data += batch * model.kv_bytes_per_sequence(context, kv_bytes)
    data += batch * model.recurrent_state_bytes * 2
    flops = 2.0 * tokens * (model.body_params_active + model.lm_head_params)
    flops += tokens * model.attention_flops_per_query(context)
    t_mem = data / (devices * bandwidth)
    t_comp = flops / (devices * peak) if peak else 0.0
    return t_mem, t_comp


def step_bound(model: ModelSpec, *, batch: float, context: float, query_tokens: int, weight_bytes: float,
               kv_bytes: float, devices: int, bandwidth: float, peak: float | None) -> float:
    """``t_min`` in seconds (see the module docstring)."""
    return max(step_bounds(model, batch=batch, context=context, query_tokens=query_tokens,
                           weight_bytes=weight_bytes, kv_bytes=kv_bytes, devices=devices, bandwidth=bandwidth,
                           peak=peak))


def any_batch_aggregate(model: ModelSpec, devices: int, peak: float | None) -> float | None:
    """Aggregate tok/s no batch size can beat: D·P / (2·(active body + lm_head)) FLOPs per generated token.

    Each generated token passes through the target at least once (a verified draft too), and each pass costs at
    least two FLOPs per active parameter; attention and overheads only add. None without a compute peak.
    """
    if not peak:
        return None
    return devices * peak / (2.0 * (model.body_params_active + model.lm_head_params))


class CeilingInputs:
    """Reference inputs of the ceiling, resolved once per id for one ledger (model, hardware, formats).

    The audit and the index compute a ceiling for every arm; most arms share a model, a part and a format,
    so building their specs once keeps the per-arm cost to a few multiplications.
    """

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self._models: dict[str, ModelSpec | str] = {}
        self._hardware: dict[tuple[str, int], HardwareSpec | str] = {}
        self._formats: dict[str, float | str] = {}
        self._min_kv: float | None = None

    def model(self, model_id: str) -> ModelSpec | str:
        if model_id not in self._models:
            record = self.ledger.records.get(model_id)
            if not isinstance(record, ModelArch):
                self._models[model_id] = f"no model record {model_id!r}"
            else:
                try:
                    self._models[model_id] = model_from_record(record)
                except MissingInputError as exc:
                    self._models[model_id] = str(exc)
        return self._models[model_id]

    def hardware(self, accelerator: str, count: int) -> HardwareSpec | str:
        key = (accelerator, count)
        if key not in self._hardware:
            try:
                self._hardware[key] = hardware_spec(self.ledger, accelerator, count)
            except MissingInputError as exc:
                self._hardware[key] = str(exc)
        return self._hardware[key]

    def format_bytes(self, format_id: str) -> float | str:
        if format_id not in self._formats:
            try:
                self._formats[format_id] = format_spec(self.ledger, format_id).bytes_per_param
            except MissingInputError as exc:
                self._formats[format_id] = str(exc)
        return self._formats[format_id]

    def min_kv_bytes(self) -> float:
        if self._min_kv is None:
            self._min_kv = _min_kv_bytes(self.ledger)
        return self._min_kv


def _min_kv_bytes(ledger: Ledger) -> float:
    sizes = []
    for fmt in ledger.typed("format", Format):
        if "kv-cache" in fmt.applies_to:
            try:
                sizes.append(format_from_record(fmt).bytes_per_param)
            except MissingInputError:
                continue
    return min(sizes) if sizes else FALLBACK_KV_BYTES


def arm_ceiling(ledger: Ledger, record: Benchmark, arm: Arm, inputs: CeilingInputs | None = None) -> Ceiling | str:
    """The ceiling of one arm, or the reason it cannot be computed (pass ``inputs`` to share lookups)."""
    inputs = inputs or CeilingInputs(ledger)
    subject = effective_subject(record, arm)
    workload = effective_workload(record, arm)
    notes: list[str] = []
    weights = text(subject.weights)
    devices = number(subject.accelerator_count)
    if weights is None:
        return "weight format unknown"
    if devices is None:
        return "accelerator count unknown"
    query_tokens = 1
    if arm.speculative is not None:
        k = number(arm.speculative.k)
        if k is None:
            return "speculative k unknown"
        query_tokens = int(k) + 1
    model = inputs.model(subject.model)
    hw = inputs.hardware(subject.accelerator, int(devices))
    w = inputs.format_bytes(weights)
    for found in (model, hw, w):
        if isinstance(found, str):
            return found
    assert isinstance(model, ModelSpec) and isinstance(hw, HardwareSpec) and isinstance(w, float)
    kv_id = text(subject.kv_cache)
    if kv_id is None:
        kv_bytes = inputs.min_kv_bytes()
        notes.append(f"kv cache unknown: {kv_bytes:g} bytes/element (smallest KV format) used")
    else:
        kv_found = inputs.format_bytes(kv_id)
        if isinstance(kv_found, str):
            return kv_found
        kv_bytes = kv_found
    context = number(workload.input_tokens)
    if context is None:
        context = 0.0
        notes.append("input length unknown: KV traffic taken as 0")
    batch = arm_concurrency(record, arm)
    peak = max(hw.peaks.values()) if hw.peaks else None
    if peak is None:
        notes.append(f"{hw.id} publishes no tensor peak: memory bound only")
    if batch is None:
        if peak:
            notes.append("concurrency unknown: per-stream bound at B=1; aggregate bound from compute alone "
                         "(holds at any batch: every generated token costs ≥ 2·active FLOPs)")
        else:
            notes.append("concurrency unknown: per-stream bound at B=1, no aggregate bound")
    t_mem, t_comp = step_bounds(model, batch=float(batch or 1), context=context, query_tokens=query_tokens,
                                weight_bytes=w, kv_bytes=kv_bytes, devices=int(devices), bandwidth=hw.bandwidth,
                                peak=peak)
    t_min = max(t_mem, t_comp)
    per_stream = query_tokens / t_min
    return Ceiling(
        tok_s_per_stream=per_stream,
        aggregate_tok_s=per_stream * batch if batch is not None else any_batch_aggregate(model, int(devices), peak),
        tpot_ms=1e3 * t_min / query_tokens,
        step_ms=1e3 * t_min,
        query_tokens=query_tokens,
        notes=tuple(notes),
        limiting="compute" if t_comp > t_mem else "memory",
        aggregate_any_batch=batch is None and bool(peak),
        speculative=arm.speculative is not None,
    )


def result_efficiency(ceiling: Ceiling, result: Result) -> tuple[float, float] | None:
    """``(efficiency %, ceiling)`` of one result; None when its metric has no bound here.

    Throughput: value / ceiling; TPOT: ceiling / value (both 100 % at the physical limit).
    """
    bound = ceiling.bound_for(result.metric)
    if bound is None or result.value <= 0:
        return None
    value = float(result.value)
    if result.metric in LATENCY_METRICS:
        factor = conversion(result.unit, "ms")
        if factor is None:
            return None
        value = value * factor
        return 100.0 * bound / value, bound
    return 100.0 * value / bound, bound


__all__ = [
    "CHECKED_METRICS",
    "Ceiling",
    "CeilingInputs",
    "arm_ceiling",
    "result_efficiency",
    "step_bound",
    "step_bounds",
]
