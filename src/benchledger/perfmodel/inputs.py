"""The adapter between the ledger and the pure model: records → ``Scenario`` / ``Params``, arms → measurements.

This is the only perfmodel module that looks at ledger records; it does no file I/O itself (the caller loads
the ``Ledger``). Anything a prediction needs that a record leaves unknown is either an explicit error
(``MissingInputError``) or a stated default listed in the prediction's assumptions.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from benchledger.engines import profile_for
from benchledger.ledger.store import Ledger
from benchledger.perfmodel.architecture import model_from_record
from benchledger.perfmodel.errors import MissingInputError
from benchledger.perfmodel.kernels import VERIFY_EXPONENT
from benchledger.perfmodel.predict import Params, Scenario
from benchledger.perfmodel.recordvalues import arm_concurrency, format_spec, hardware_spec, number, text
from benchledger.perfmodel.recordvalues import get_record as _get
from benchledger.perfmodel.roofline import Efficiency
from benchledger.perfmodel.specdec import METHODS, SpecConfig
from benchledger.schema import (
    Arm,
    Benchmark,
    Calibration,
    ModelArch,
    Quantity,
    Source,
    Unknown,
    effective_subject,
    effective_workload,
)

WIDE_FORMATS = ("bf16", "fp16", "fp32")
DEFAULT_KV = "bf16"
GGUF_OUTPUT_FORMATS = {"q3-k-m": "q6-k", "q4-k-m": "q6-k", "q4-0": "q6-k", "iq4-xs": "q6-k", "q6-k": "q6-k",
                       "ud-q3-k-xl": "q6-k", "ud-q4-k-xl": "q6-k", "q8-0": "q8-0"}
"""GGUF weight formats → the format their file stores the output matrix (lm_head) in: llama.cpp's quantizer
(``llama_tensor_get_type`` in its ``src/llama-quant.cpp``) writes ``output.weight`` as Q6_K for every k-quant and
legacy file type except Q8_0 (kept Q8_0) and the IQ1/IQ2 types (Q5_K, none in the ledger). The other weight formats
(vLLM/TRT checkpoints) keep the lm_head in bf16."""
PARAM_NAMES = ("eta_m", "eta_c", "t0_ms", "phi", "phi_exponent", "eta_attn", "t0_draft_ms", "eta_prefill",
               "t0_prefill_ms")


def scenario_for(
    ledger: Ledger, *, model: str, hardware: str, weights: str, context: float, concurrency: int,
    devices: int = 1, tp: int | None = None, kv: str | None = None, lm_head: str | None = None,
    engine: str | None = None, spec: SpecConfig | None = None, links: list[str] | None = None, pp: int | None = None,
) -> Scenario:
    """A ``Scenario`` from record ids. KV defaults to bf16, the lm_head to ``default_lm_head`` (stated in
    assumptions)."""
    model_record = _get(ledger, "model", model, ModelArch)
    assert isinstance(model_record, ModelArch)
    head, head_origin = default_lm_head(weights)
    head = lm_head or head
    kv_id = kv or DEFAULT_KV
    provenance = {
        "hardware": f"record:{hardware}", "weights": f"record:{weights}",
        "kv": f"record:{kv_id}" if kv else f"default (bf16), record:{kv_id}",
        "lm_head": f"record:{head}" if lm_head else f"{head_origin}, record:{head}",
    }
    if spec is not None:
        profile = profile_for(engine)
        provenance["state_snapshots"] = (f"engine profile {profile.name} (benchledger/engines/) for {engine}: "
                                         + ("one state snapshot per verified position" if spec.state_snapshots
                                            else "one state write per step"))
    tp, stages, split = device_split(engine, devices, tp, pp)
    if split:
        provenance["split"] = split
    return Scenario(
        model=model_from_record(model_record), hardware=hardware_spec(ledger, hardware, devices, links),
        weights=format_spec(ledger, weights), kv=format_spec(ledger, kv_id), lm_head=format_spec(ledger, head),
        context=context, concurrency=concurrency, devices=devices, tp=tp, pp=stages, engine=engine, spec=spec,
        provenance=provenance,
    )


def default_lm_head(weights: str) -> tuple[str, str]:
    """(format id, why) of the lm_head when none is stated: a GGUF file's output-matrix format
    (``GGUF_OUTPUT_FORMATS``), a wide format itself, else bf16."""
    if weights in GGUF_OUTPUT_FORMATS:
        head = GGUF_OUTPUT_FORMATS[weights]
        return head, f"default (a {weights} GGUF file stores output.weight in {head}: llama.cpp's quantizer)"
    head = weights if weights in WIDE_FORMATS else "bf16"
    return head, f"default (lm_head left in {head})"


LAYER_SPLIT_ENGINES = ("llama-cpp",)
"""Engines that split one model over several devices by layers unless told otherwise (llama.cpp's default
``--split-mode layer``); the others shard tensors (TP)."""


def device_split(engine: str | None, devices: int, tp: int | None, pp: int | None) -> tuple[int | None, int, str]:
    """(tp, pipeline stages, how it was decided): stated sizes win; with neither stated, a layer-split engine
    puts its ``devices`` in ``devices`` stages, any other engine shards over them (TP)."""
    if pp is not None and pp > 1:
        return tp, pp, f"pipeline/layer split over {pp} stages (stated)"
    if tp is None and devices > 1 and engine in LAYER_SPLIT_ENGINES:
        return 1, devices, f"layer split over {devices} devices ({engine}'s default --split-mode layer)"
    return tp, 1, ""


def snapshots_per_position(engine: str | None) -> bool:
    """Whether the engine writes one recurrent-state snapshot per verified position (its profile says)."""
    return profile_for(engine).recurrent_state_snapshots_per_position


def find_calibration(ledger: Ledger, accelerator: str, engine: str | None) -> Calibration | None:
    """The calibration record for (accelerator, engine), if any (the last by id when several)."""
    found = [c for c in ledger.typed("calibration", Calibration)
             if c.accelerator == accelerator and (engine is None or c.engine == engine)]
    return sorted(found, key=lambda c: c.id)[-1] if found else None


def params_for(ledger: Ledger, accelerator: str, engine: str | None) -> Params:
    """Efficiency parameters from the matching calibration record; defaults (stated) where none is fitted."""
    cal = find_calibration(ledger, accelerator, engine)
    if cal is None:
        return Params()
    return params_from_calibration(cal)


def params_from_calibration(cal: Calibration) -> Params:
    """Efficiency knobs of a calibration record. φ: ``phi_exponent`` (φ(T) = T^γ) when fitted, else the older
    constant ``phi``; ``eta_attn`` only when fitted (else attention streams at η_m)."""
    base = Efficiency()
    values = {k: float(q.value) for k, q in cal.parameters.items()}

    def fitted(name: str) -> bool:
        return name in cal.parameters and not cal.parameters[name].note.startswith("not identifiable")

    eff = Efficiency(
        phi_exp=values["phi_exponent"] if fitted("phi_exponent") else None,
        eta_attn=values["eta_attn"] if fitted("eta_attn") else None,
        eta_m=values.get("eta_m", base.eta_m), eta_c=values.get("eta_c", base.eta_c),
        t0=values.get("t0_ms", base.t0 * 1e3) / 1e3, phi=values.get("phi", base.phi),
        t0_draft=values.get("t0_draft_ms", base.t0_draft * 1e3) / 1e3,
        eta_prefill=values.get("eta_prefill", base.eta_prefill),
        t0_prefill=values.get("t0_prefill_ms", base.t0_prefill * 1e3) / 1e3,
    )
    origins = {name: (cal.id if not cal.parameters[name].note.startswith("not identifiable")
                      else f"default (not identifiable from the arms of {cal.id})")
               for name in PARAM_NAMES if name in values}
    return Params(eff, origins)


VERIFY_KERNELS = VERIFY_EXPONENT
"""``--verify-kernel`` names → φ(T) exponent (``kernels.VERIFY_EXPONENT``)."""


def with_verify_kernel(params: Params, kernel: str | None) -> Params:
    """``params`` with the verify-attention factor stated by the user: ``exact``, ``prefill`` or a number φ."""
    if kernel is None:
        return params
    if kernel in VERIFY_KERNELS:
        eff = replace(params.eff, phi_exp=VERIFY_KERNELS[kernel])
        origin = f"input (--verify-kernel {kernel}: φ(T) = T^{VERIFY_KERNELS[kernel]:g})"
        return Params(eff, {**params.origins, "phi_exponent": origin})
    try:
        phi = float(kernel)
    except ValueError:
        raise ValueError(f"--verify-kernel expects exact, prefill or a factor φ > 0, got {kernel!r}") from None
    if not phi > 0:
        raise ValueError(f"--verify-kernel factor must be > 0, got {kernel!r}")
    return Params(replace(params.eff, phi_exp=None, phi=phi), {**params.origins, "phi": f"input (--verify-kernel {phi:g})"})


# --- arms (``number``, ``text``, ``arm_concurrency``: recordvalues.py) ---------------------------------------
def _fraction(q: Quantity) -> float:
    v = float(q.value)
    return v / 100.0 if q.unit.strip() == "%" or v > 1.0 else v


def arm_spec(record: Benchmark, arm: Arm, engine: str) -> SpecConfig | str | None:
    """The arm's ``SpecConfig`` (None without speculation), or a reason string when k/acceptance is unknown."""
    spec = arm.speculative
    if spec is None:
        return None
    k = number(spec.k)
    if k is None:
        return "speculative k unknown"
    if spec.method not in METHODS or k < 1:
        return f"speculative method {spec.method!r} with k={k:g} is not modelled"
    if spec.method == "draft-model":
        # the arm's ``draft`` names the checkpoint as the source wrote it, not a ledger model id
        return "draft-model arm: the draft model's architecture is not resolved from the ledger"
    acc = arm.acceptance
    rates: tuple[float, ...] = ()
    al: float | None = None
    if acc is not None and acc.mean_length is not None:
        al = min(max(float(acc.mean_length.value), 1.0), k + 1)
    elif acc is not None and len(acc.per_position) >= int(k):
        rates = tuple(_fraction(q) for q in acc.per_position)
    elif acc is not None and acc.rate is not None:
        al = 1.0 + k * _fraction(acc.rate)
    else:
        return "acceptance unknown"
    return SpecConfig(spec.method, int(k), rates, al, state_snapshots=snapshots_per_position(engine))


LLAMA_BENCH_TG = "llama-bench-tg"
"""A llama-bench text-generation result: ``-n N`` tokens generated with no prompt, from the KV depth ``-d``
(default 0) (ledger/sources/llama-cpp-llama-bench-readme-08d0baa.md)."""
DEPTH_FLAG = re.compile(r"(?:^|\s)(?:-d|--n-depth)(?:[=\s]|$)")


def llama_bench_tg(record: Benchmark, arm: Arm) -> bool:
    """Every result of the arm is a llama-bench tg result and its flags state no KV depth (``-d``)."""
    if not arm.results or any(r.definition != LLAMA_BENCH_TG for r in arm.results):
        return False
    return DEPTH_FLAG.search(text(effective_subject(record, arm).engine_flags) or "") is None


def arm_context(record: Benchmark, arm: Arm) -> float | None:
    """Mean KV length during decode: input + output/2 (input alone when output is unknown); a llama-bench tg
    result with no input length decodes its N tokens from depth 0, its default: N/2."""
    wl = effective_workload(record, arm)
    inp = number(wl.input_tokens)
    out = number(wl.output_tokens)
    if inp is None:
        return out / 2.0 if out is not None and llama_bench_tg(record, arm) else None
    return inp + (out / 2.0 if out is not None else 0.0)


def _open_loop(record: Benchmark, arm: Arm) -> bool:
    """Offline / request-rate runs (e.g. throughput tables at an infinite rate): a concurrency of 1 would be a
    false assumption, so accuracy studies never assume one for them."""
    wl = effective_workload(record, arm)
    return wl.scenario in ("offline", "request-rate") or (wl.request_rate is not None and not isinstance(
        wl.request_rate, Unknown))


SLOT_FLAGS = re.compile(r"(?:^|\s)(?:--parallel|-np)[=\s]+(\d+)")
"""llama-server's slot count: ``--parallel N`` / ``-np N``."""
SLOTTED_ENGINES = ("llama-cpp",)
"""Engines that decode at most one sequence per server slot; more concurrent requests wait in a queue."""


def served_batch(engine: str | None, flags: str | None, concurrency: int) -> tuple[int, str]:
    """(sequences decoded together, note): a slotted server decodes ``min(concurrency, slots)`` sequences and
    queues the rest (their TPOT is the slots' step, the aggregate the slots'); with the slot count unstated and
    concurrency > 1 the note says the batch = concurrency is an assumption."""
    if engine not in SLOTTED_ENGINES or concurrency <= 1:
        return concurrency, ""
    found = SLOT_FLAGS.search(flags or "")
    if found is None:
        return concurrency, (f"{engine} slot count (--parallel) unknown: batch = concurrency {concurrency} "
                             "assumed (fewer slots would queue the rest)")
    slots = int(found.group(1))
    if slots >= concurrency:
        return concurrency, ""
    return slots, f"batch {slots} = the server's --parallel {slots} slots (concurrency {concurrency} queues)"


@dataclass(frozen=True)
class ArmScenario:
    """An arm turned into a scenario (or the reason it could not be), plus what was assumed."""

    scenario: Scenario | None
    reason: str = ""
    assumed: tuple[str, ...] = ()


AcceptanceLookup = Callable[[Benchmark, Arm, int], tuple[float, str] | None]
"""(record, arm, k) → (AL, where it came from) for an arm whose own acceptance is unknown."""


def _assumed_spec(record: Benchmark, arm: Arm, engine: str, lookup: AcceptanceLookup | None,
                  assumed: list[str]) -> SpecConfig | str | None:
    """``arm_spec``, or — when only the acceptance is unknown — the arm's quoted AL range midpoint, else
    ``lookup``'s AL; each such use is appended to ``assumed``."""
    spec = arm_spec(record, arm, engine)
    if spec != "acceptance unknown" or arm.speculative is None:
        return spec
    k = int(number(arm.speculative.k) or 0)
    acc = arm.acceptance
    found: tuple[float, str] | None = None
    if acc is not None and acc.mean_length_min is not None and acc.mean_length_max is not None:
        low, high = float(acc.mean_length_min.value), float(acc.mean_length_max.value)
        found = ((low + high) / 2, f"the midpoint of the arm's quoted AL range {low:g}–{high:g}")
    elif lookup is not None:
        found = lookup(record, arm, k)
    if found is None:
        return spec
    al = min(max(found[0], 1.0), k + 1.0)
    assumed.append(f"acceptance AL {al:.2f} assumed (unknown): {found[1]}")
    return SpecConfig(arm.speculative.method, k, (), al, state_snapshots=snapshots_per_position(engine))


def arm_scenario(ledger: Ledger, record: Benchmark, arm: Arm, *, unknown_context: float | None = None,
                 unknown_concurrency: int | None = None,
                 unknown_acceptance: AcceptanceLookup | None = None) -> ArmScenario:
    """The scenario an arm ran, from its effective subject/workload; unknown conditions give a reason.

    ``unknown_context`` / ``unknown_concurrency`` fill an unknown input length / concurrency for the caller's
    own use (accuracy studies), ``unknown_acceptance`` an unknown acceptance; each use is listed in ``assumed``
    and nothing is written back to the ledger.
    """
    subject = effective_subject(record, arm)
    assumed: list[str] = []
    weights = text(subject.weights)
    devices = number(subject.accelerator_count)
    concurrency = arm_concurrency(record, arm)
    if concurrency is None and unknown_concurrency is not None and not _open_loop(record, arm):
        concurrency = unknown_concurrency
        assumed.append(f"concurrency {unknown_concurrency} assumed (unknown)")
    if concurrency is not None:
        concurrency, note = served_batch(subject.engine, text(subject.engine_flags), concurrency)
        if note:
            assumed.append(note)
    context = arm_context(record, arm)
    if context is not None and number(effective_workload(record, arm).input_tokens) is None:
        assumed.append(f"context {context:g}: llama-bench tg decodes from KV depth 0, its default (input_tokens "
                       f"unknown)")
    missing = [name for name, v in (("weights", weights), ("accelerator_count", devices),
                                    ("concurrency", concurrency)) if v is None]
    if context is None:
        if unknown_context is None:
            missing.append("input_tokens")
        else:
            context = unknown_context
            assumed.append(f"context {unknown_context:g} assumed (input_tokens unknown)")
    if missing:
        return ArmScenario(None, "unknown: " + ", ".join(missing))
    spec = _assumed_spec(record, arm, subject.engine, unknown_acceptance, assumed)
    if isinstance(spec, str):
        return ArmScenario(None, spec)
    tp = number(subject.parallelism.tp) if subject.parallelism is not None else None
    pp = number(subject.parallelism.pp) if subject.parallelism is not None else None
    split = device_split(subject.engine, int(devices or 1), int(tp) if tp else None, int(pp) if pp else None)[2]
    if split and "stated" not in split:
        assumed.append(split)
    kv = text(subject.kv_cache)
    if kv is None:
        assumed.append("kv cache bf16 assumed (unknown)")
    assert weights is not None and devices is not None and concurrency is not None and context is not None
    try:
        sc = scenario_for(
            ledger, model=subject.model, hardware=subject.accelerator, weights=weights, context=context,
            concurrency=concurrency, devices=int(devices), tp=int(tp) if tp else None, kv=kv,
            engine=subject.engine, spec=spec, links=subject.interconnects, pp=int(pp) if pp else None,
        )
    except (MissingInputError, ValueError) as exc:
        return ArmScenario(None, str(exc))
    published = measured_before(ledger, record, arm)
    if published is not None:
        sc = replace(sc, measured_before=published)
        cfg = sc.step_config()
        if (cfg.dequant_gemm_rows or cfg.score_bytes) and any(
                r.metric in ("ttft", "prefill_throughput") for r in arm.results):
            assumed.append(f"{subject.engine} built before {published}, when its results were published: "
                           + "; ".join(legacy_paths(cfg.dequant_gemm_rows, cfg.score_bytes)))
    return ArmScenario(sc, "", tuple(assumed))


def legacy_paths(dequant_rows: int, score_bytes: float) -> list[str]:
    """What a dated build's prompt did that a current one does not (``Scenario.step_config``)."""
    out = []
    if dequant_rows:
        out.append(f"block-quant GEMMs past {dequant_rows} rows on fp16 copies of the weights, cuBLAS accumulating "
                   "in fp16")
    if score_bytes:
        out.append(f"attention without flash attention, {score_bytes:g} bytes of traffic per score")
    return out


def measured_before(ledger: Ledger, record: Benchmark, arm: Arm) -> dt.date | None:
    """The earliest ``published`` date of the sources the arm's results quote (a result's own ``source``, else the
    record's ``sources``); None when none has one."""
    dates: list[dt.date] = []
    for r in arm.results:
        for source_id in [r.source] if r.source else record.sources:
            source = ledger.records.get(source_id)
            if isinstance(source, Source) and source.published is not None:
                dates.append(source.published)
    return min(dates) if dates else None


__all__ = [
    "LLAMA_BENCH_TG",
    "AcceptanceLookup",
    "ArmScenario",
    "arm_concurrency",
    "arm_context",
    "arm_scenario",
    "arm_spec",
    "default_lm_head",
    "device_split",
    "find_calibration",
    "format_spec",
    "hardware_spec",
    "llama_bench_tg",
    "number",
    "params_for",
    "params_from_calibration",
    "scenario_for",
    "served_batch",
    "snapshots_per_position",
    "text",
    "with_verify_kernel",
]
