"""``predict``: per-stream and aggregate tok/s, TPOT, speedup and the physical ceiling of one configuration.

``D`` devices run ``D / TP`` replicas; each replica serves ``⌈B / replicas⌉`` sequences. A step yields ``AL``
tokens per sequence (1 without speculation), so per stream ``tok/s = AL / t_step``, aggregate ``= B · AL / t_step``
and ``TPOT = t_step / AL``. The ceiling is the same configuration with η = 1, t0 = 0, φ = 1 and free links.
Every parameter used is listed in ``assumptions`` with its origin (a calibration record id or ``default``).
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field, replace
from typing import Any

from benchledger.engines import profile_for
from benchledger.perfmodel.architecture import ModelSpec
from benchledger.perfmodel.bounds import bound_name
from benchledger.perfmodel.formats import FormatSpec
from benchledger.perfmodel.hardware import HardwareSpec
from benchledger.perfmodel.kernels import RowCost, VerifyKernel, gemv_row_cost, verify_kernel
from benchledger.perfmodel.prefill import prefill_time
from benchledger.perfmodel.roofline import IDEAL, Efficiency, StepConfig, StepTime, step_time, verify_factor
from benchledger.perfmodel.specdec import SpecConfig, acceptance_length, spec_step_time
from benchledger.perfmodel.sync import ROOT_SYNC

GEMV_ROWS: dict[str, int] = {"llama-cpp": 8}
"""Engines whose quantized GEMMs use a matrix-vector kernel up to this many rows (ggml's ``MMVQ_MAX_BATCH_SIZE``
= 8 in ``ggml-cuda/mmvq.cuh``): a verify of T ≤ 8 tokens, or a batch of ≤ 8 sequences, stays memory-bound."""
SLOW_FP16_ARCHITECTURES = ("kepler", "maxwell", "pascal")
"""NVIDIA generations below compute capability 7.0, where llama.cpp's old CUDA kernel choice kept MMQ."""
LIMITING_SHARE = 0.15
"""A term is named in ``limiting`` when it takes at least this share of the step."""


@dataclass(frozen=True)
class Assumption:
    """One parameter the prediction used and where it came from."""

    name: str
    value: float | str
    unit: str
    origin: str
    """A calibration record id, 'default', 'input', or 'record:<id>' for reference data."""


@dataclass(frozen=True)
class Params:
    """Efficiency parameters plus the origin of each (calibration id or 'default')."""

    eff: Efficiency = field(default_factory=Efficiency)
    origins: dict[str, str] = field(default_factory=dict)

    def origin(self, name: str) -> str:
        return self.origins.get(name, "default")


@dataclass(frozen=True)
class Scenario:
    """Everything one prediction needs."""

    model: ModelSpec
    hardware: HardwareSpec
    weights: FormatSpec
    kv: FormatSpec
    lm_head: FormatSpec
    context: float
    concurrency: int
    devices: int = 1
    tp: int | None = None
    pp: int = 1
    """Pipeline stages (layer split, e.g. llama.cpp's default ``--split-mode layer``)."""
    engine: str | None = None
    spec: SpecConfig | None = None
    provenance: dict[str, str] = field(default_factory=dict)
    prompt_tokens: float | None = None
    """Prompt length for TTFT / prefill (None: ``context``)."""
    measured_before: dt.date | None = None
    """The date the measurement was published by (its source's ``published``), so the engine build predates it;
    None: a current build."""
    """Reference inputs → record ids they came from (for the assumptions list)."""

    @property
    def tp_size(self) -> int:
        return self.tp if self.tp is not None else max(self.devices // max(self.pp, 1), 1)

    @property
    def replicas(self) -> int:
        return max(self.devices // (max(self.tp_size, 1) * max(self.pp, 1)), 1)

    @property
    def batch_per_replica(self) -> int:
        return math.ceil(self.concurrency / self.replicas)

    @property
    def row_cost(self) -> RowCost | None:
        """The engine's matrix-vector per-row cost on this hardware (``kernels.py``), None when not stored."""
        return gemv_row_cost(self.engine, self.hardware.family) if self.engine in GEMV_ROWS else None

    @property
    def verify_kernel(self) -> VerifyKernel | None:
        """The verify attention kernel the engine's sources state on this hardware (``kernels.py``), else None."""
        return verify_kernel(self.engine, self.hardware.family) if self.spec is not None else None

    def step_config(self) -> StepConfig:
        profile = profile_for(self.engine)
        row_cost = self.row_cost
        return StepConfig(
            model=self.model, hardware=self.hardware, weights=self.weights, kv=self.kv, lm_head=self.lm_head,
            batch=float(self.batch_per_replica), context=float(self.context), tp=self.tp_size,
            stages=max(self.pp, 1), gemv_rows=GEMV_ROWS.get(self.engine or "", 0),
            gemv_row_cost=0.0 if row_cost is None else row_cost.share,
            draft_catch_up=profile.draft_head_catch_up, prompt_batch=profile.prompt_batch,
            prompt_ubatch=profile.prompt_ubatch, root_sync=ROOT_SYNC.get(self.engine or ""),
            dequant_gemm_rows=self.dequant_gemm_rows(),
            score_bytes=profile.score_bytes if self._built_before(profile.unfused_attention_until) else 0.0,
        )

    def _built_before(self, change: dt.date | None) -> bool:
        """Whether the engine build predates ``change`` (``measured_before``), on an NVIDIA GPU whose fp16 the
        old CUDA paths served (not Kepler, Maxwell or Pascal)."""
        if change is None or self.measured_before is None or self.measured_before >= change:
            return False
        hw = self.hardware
        return hw.family.startswith("nvidia") and hw.architecture not in SLOW_FP16_ARCHITECTURES

    def dequant_gemm_rows(self) -> int:
        """``EngineProfile.dequant_gemm_rows`` when the build predates ``dequant_gemm_until`` (``measured_before``)
        and the part is an NVIDIA GPU whose fp16 that path served (not Kepler, Maxwell or Pascal; a P100, compute
        capability 6.0, is counted with Pascal); else 0."""
        profile = profile_for(self.engine)
        return profile.dequant_gemm_rows if self._built_before(profile.dequant_gemm_until) else 0


@dataclass(frozen=True)
class Prediction:
    """The model's answer for one scenario."""

    tok_s_per_stream: float
    aggregate_tok_s: float
    tpot_ms: float
    ceiling_tok_s_per_stream: float
    acceptance_length: float
    speedup: float | None
    limiting: list[str]
    step: StepTime
    baseline_step: StepTime | None
    assumptions: list[Assumption]
    prefill_step: StepTime | None = None
    prompt_tokens: float = 0.0

    @property
    def ttft_ms(self) -> float | None:
        """Time to first token of a request arriving alone: its prefill forward (``prefill.py``)."""
        return None if self.prefill_step is None else self.prefill_step.seconds * 1e3

    @property
    def prefill_tok_s(self) -> float | None:
        return None if self.prefill_step is None else self.prompt_tokens / self.prefill_step.seconds

    @property
    def ceiling_aggregate_tok_s(self) -> float:
        return self.ceiling_tok_s_per_stream * (self.aggregate_tok_s / self.tok_s_per_stream)

    def to_json(self) -> dict[str, Any]:
        def terms(step: StepTime | None) -> list[dict[str, Any]] | None:
            if step is None:
                return None
            return [
                {"name": t.name, "ms": round(t.seconds * 1e3, 4), "share": round(step.share(t.name), 4),
                 "bound": t.bound, "bytes": t.bytes, "flops": t.flops, "detail": t.detail}
                for t in step.terms
            ]

        return {
            "tok_s_per_stream": round(self.tok_s_per_stream, 4),
            "aggregate_tok_s": round(self.aggregate_tok_s, 4),
            "tpot_ms": round(self.tpot_ms, 4),
            "ceiling_tok_s_per_stream": round(self.ceiling_tok_s_per_stream, 4),
            "ceiling_aggregate_tok_s": round(self.ceiling_aggregate_tok_s, 4),
            "ceiling_name": bound_name("per_stream_throughput", draft_cost=True if self.speedup is not None else None),
            "ceiling_aggregate_name": bound_name("output_throughput",
                                                 draft_cost=True if self.speedup is not None else None),
            "acceptance_length": round(self.acceptance_length, 4),
            "speedup": None if self.speedup is None else round(self.speedup, 4),
            "limiting": self.limiting,
            "step_ms": round(self.step.seconds * 1e3, 4),
            "terms": terms(self.step),
            "baseline_terms": terms(self.baseline_step),
            "prompt_tokens": self.prompt_tokens,
            "ttft_ms": None if self.ttft_ms is None else round(self.ttft_ms, 3),
            "prefill_tok_s": None if self.prefill_tok_s is None else round(self.prefill_tok_s, 3),
            "prefill_terms": terms(self.prefill_step),
            "prefill_parameters": {a.name: {"value": a.value, "origin": a.origin} for a in self.assumptions
                                   if a.name in ("eta_prefill", "t0_prefill_ms", "gemm_peak_tflops")},
            "assumptions": [a.__dict__ for a in self.assumptions],
        }


def _step(sc: Scenario, eff: Efficiency) -> tuple[StepTime, float]:
    cfg = sc.step_config()
    if sc.spec is None:
        return step_time(cfg, eff), 1.0
    al = acceptance_length(sc.spec.k, sc.spec.rates, sc.spec.acceptance_length)
    return spec_step_time(cfg, sc.spec, eff), al


def limiting_terms(step: StepTime) -> list[str]:
    """Names of the terms that take at least ``LIMITING_SHARE`` of the step, largest first."""
    ranked = sorted(step.terms, key=lambda t: -t.seconds)
    named = [t.name for t in ranked if step.share(t.name) >= LIMITING_SHARE]
    return named or [ranked[0].name]


def verify_params(sc: Scenario, params: Params) -> Params:
    """``params`` with φ(T) = T^γ of the verify kernel the engine's sources state (``Scenario.verify_kernel``) in
    place of a φ pooled from other setups or defaulted; a φ the user states (``--verify-kernel``, origin 'input')
    or one fitted on this setup's own arms (a calibration record of this hardware × engine, or its fit in
    progress: origin 'calibration…') is kept: it measures that kernel's cost here."""
    stated = sc.verify_kernel
    if stated is None or any(params.origin(n).startswith(("input", "calibration"))
                             for n in ("phi", "phi_exponent")):
        return params
    return Params(replace(params.eff, phi_exp=stated.exponent),
                  {**params.origins, "phi_exponent": f"record:{stated.source} ({stated.kind} kernel for q_len > 1: "
                                                      f"'{stated.quote}')"})


def predict(sc: Scenario, params: Params | None = None) -> Prediction:
    """Predict tok/s, TPOT, speedup (vs the same config without speculation) and the ceiling."""
    params = verify_params(sc, params or Params())
    eff = params.eff
    step, al = _step(sc, eff)
    ceiling_step, _ = _step(sc, IDEAL)
    per_stream = al / step.seconds
    speedup: float | None = None
    base_step: StepTime | None = None
    if sc.spec is not None:
        base_step, _ = _step(replace(sc, spec=None), eff)
        speedup = al * base_step.seconds / step.seconds
    prompt = sc.prompt_tokens if sc.prompt_tokens is not None else sc.context
    return Prediction(
        prefill_step=(prefill_time(sc.step_config(), prompt, eff) if sc.hardware.gemm_peak(sc.weights.id)[1]
                      else None), prompt_tokens=prompt,
        tok_s_per_stream=per_stream,
        aggregate_tok_s=per_stream * sc.concurrency,
        tpot_ms=1e3 * step.seconds / al,
        ceiling_tok_s_per_stream=al / ceiling_step.seconds,
        acceptance_length=al,
        speedup=speedup,
        limiting=limiting_terms(step),
        step=step,
        baseline_step=base_step,
        assumptions=_assumptions(sc, params, al),
    )


def _assumptions(sc: Scenario, params: Params, al: float) -> list[Assumption]:
    eff = params.eff
    out = [
        Assumption("eta_m", eff.eta_m, "fraction of peak bandwidth", params.origin("eta_m")),
        Assumption("eta_c", eff.eta_c, "fraction of peak compute", params.origin("eta_c")),
        (Assumption("t0_ms", eff.t0 * 1e3, "ms per step", params.origin("t0_ms")) if eff.t0_layer is None else
         Assumption("t0_layer_us", eff.t0_layer * 1e6, f"µs per layer per step (× {sc.model.n_layers} layers)",
                    params.origin("t0_layer_us"))),
        Assumption("eta_attn", eff.eta_m if eff.eta_attn is None else eff.eta_attn,
                   "fraction of peak bandwidth (decode attention)",
                   params.origin("eta_attn") if eff.eta_attn is not None else "η_m (not fitted separately)"),
    ]
    out.append(Assumption("eta_prefill", eff.eta_prefill, "fraction of peak compute (prefill)",
                          params.origin("eta_prefill")))
    out.append(Assumption("t0_prefill_ms", eff.t0_prefill * 1e3, "ms per prefill", params.origin("t0_prefill_ms")))
    if sc.spec is not None:
        if eff.phi_exp is not None:
            out.append(Assumption("phi_exponent", eff.phi_exp, f"φ(T) = T^γ = {verify_factor(eff, sc.spec.query_tokens):.3g}",
                                  params.origin("phi_exponent")))
        else:
            out.append(Assumption("phi", eff.phi, "verify attention factor φ (constant in T)", params.origin("phi")))
        out.append(Assumption("t0_draft_ms", eff.t0_draft * 1e3, "ms per draft step", params.origin("t0_draft_ms")))
    if sc.row_cost is not None:
        out.append(Assumption("gemv_row_cost", round(sc.row_cost.share, 4),
                              f"share of a one-row weight read per extra row (matrix-vector kernel on block-quant "
                              f"weights, ≤ {GEMV_ROWS[sc.engine or '']} rows): {sc.row_cost.derivation}",
                              f"record:{sc.row_cost.source}"))
    if sc.pp > 1:
        out.append(Assumption("pipeline_stages", sc.pp, "stages (per-stage times add)", sc.provenance.get(
            "split", "input")))
    if sc.tp_size > 1:
        link = sc.hardware.link_bandwidth
        sync = ROOT_SYNC.get(sc.engine or "")
        if sync is None:
            out.append(Assumption("allreduce_latency_us", eff.allreduce_latency * 1e6, "µs per all-reduce", "default"))
        else:
            out.append(Assumption("root_sync_vectors", sync.vectors_per_layer_per_worker,
                                  f"hidden-size vectors per layer per worker, {sync.bytes_per_element:g} bytes per "
                                  f"element, no per-round latency (none stored): {sync.derivation}",
                                  f"record:{sync.source}"))
        out.append(Assumption("link_gbs", (link or eff.link_bandwidth) / 1e9, "GB/s per direction",
                              f"record:{sc.hardware.link_id}" if link else "default"))
    hw = sc.hardware
    out.append(Assumption("bandwidth_gbs", hw.bandwidth / 1e9, "GB/s per device", sc.provenance.get("hardware", "input")))
    precision, peak, how = hw.gemm_peak(sc.weights.id)
    out.append(Assumption("gemm_peak_tflops", "unknown" if peak is None else round(peak / 1e12, 3),
                          f"TFLOP/s dense ({precision}): {how}", sc.provenance.get("hardware", "input")))
    out.extend(Assumption("peak_note", note, "", sc.provenance.get("hardware", "input")) for note in hw.notes)
    for label, fmt in (("weights", sc.weights), ("kv", sc.kv), ("lm_head", sc.lm_head)):
        out.append(Assumption(f"{label}_bytes_per_param", fmt.bytes_per_param, f"bytes ({fmt.id})",
                              sc.provenance.get(label, "input")))
    out.extend(Assumption(f"model.{name}", "unknown: taken as absent (0)", "", f"record:{sc.model.id}")
               for name in sc.model.unknown_fields)
    if sc.model.mtp_params_estimated and sc.spec is not None and sc.spec.method not in ("ngram", "suffix"):
        out.append(Assumption("mtp_layer_params", sc.model.mtp_layer_params, "parameters",
                              "default: one average layer + 2H² projection (record has no mtp_params)"))
    if sc.spec is not None:
        out.append(Assumption("acceptance_length", al, "tokens per step", sc.provenance.get(
            "acceptance", "input" if sc.spec.acceptance_length is not None else "input: 1 + Σ r_i")))
        out.append(Assumption("state_snapshots_per_position", str(sc.spec.state_snapshots), "",
                              sc.provenance.get("state_snapshots", "default")))
    return out


__all__ = ["LIMITING_SHARE", "Assumption", "Params", "Prediction", "Scenario", "limiting_terms", "predict",
           "verify_params"]
