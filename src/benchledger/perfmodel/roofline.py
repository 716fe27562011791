"""Per-step time of a decode or verify forward on TP-sharded devices, as a sum of named terms.

Each operator class costs ``max(bytes / (η_m·BW), flops / (η_c·P))`` per device; the step adds a fixed per-step
overhead ``t0`` and the tensor-parallel all-reduces. A verify forward carries ``T`` query tokens per sequence:
its attention term is multiplied by the verify-kernel factor ``φ`` (≈1 when a multi-query decode kernel reads
the KV once; ≈T or worse when ``q_len > 1`` falls back to a prefill kernel), and on vLLM's native speculative
path a hybrid model writes one recurrent-state snapshot per query position.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from benchledger.perfmodel.architecture import ModelSpec
from benchledger.perfmodel.formats import FormatSpec
from benchledger.perfmodel.hardware import HardwareSpec
from benchledger.perfmodel.kernels import gemv_rows_factor
from benchledger.perfmodel.sync import RootSync, root_sync_bytes

ACTIVATION_BYTES = 2.0
"""Bytes per activation element moved by a TP all-reduce (bf16)."""


@dataclass(frozen=True)
class Efficiency:
    """The knobs calibration fits: fractions of peak reached, per-step overhead, verify-kernel factor."""

    eta_m: float = 0.75
    eta_c: float = 0.5
    t0: float = 0.002
    phi: float = 1.0
    """Verify-attention factor when ``phi_exp`` is None: a constant (``--verify-kernel <φ>``, older calibrations)."""
    phi_exp: float | None = None
    """φ(T) = T^phi_exp: 0 an exact multi-query kernel (KV read once for all T queries), 1 a prefill kernel (once
    per query), above 1 worse, below 0 better than one decode read (φ < 1 allowed)."""
    eta_attn: float | None = None
    """Fraction of peak bandwidth the decode-attention KV reads reach (None: ``eta_m``, as weight streaming)."""
    t0_layer: float | None = None
    """Per-step overhead per decoder layer, seconds: when set, the step's fixed cost is ``t0_layer × layers`` (kernel
    launches and syncs scale with depth) and ``t0`` is not used."""
    t0_draft: float = 0.001
    """Fixed cost of one draft forward (launch, sampling, bookkeeping), seconds."""
    eta_prefill: float = 0.4
    """Fraction of peak compute a prefill forward's GEMMs reach (``prefill.py``)."""
    t0_prefill: float = 0.02
    """Fixed cost of a request's prefill (scheduling, tokenization, first sample, streaming), seconds."""
    allreduce_latency: float = 10e-6
    link_bandwidth: float = 32e9
    """Used when the hardware's link is unknown (bytes/s per direction; ≈ PCIe 4.0 x16)."""
    links: bool = True
    """False: TP all-reduces cost nothing (the physical ceiling)."""


IDEAL = Efficiency(eta_m=1.0, eta_c=1.0, t0=0.0, phi=1.0, t0_draft=0.0, allreduce_latency=0.0, links=False)
"""η = 1, no overhead, ideal verify kernel, free links: the physical ceiling."""


@dataclass(frozen=True)
class Term:
    """One named cost of a step, per device."""

    name: str
    seconds: float
    bytes: float = 0.0
    flops: float = 0.0
    bound: str = "memory"
    """'memory', 'compute' or 'fixed'."""
    detail: str = ""


@dataclass(frozen=True)
class StepTime:
    """The terms of one step and their sum."""

    terms: tuple[Term, ...]

    @property
    def seconds(self) -> float:
        return sum(t.seconds for t in self.terms)

    def term(self, name: str) -> Term | None:
        return next((t for t in self.terms if t.name == name), None)

    def share(self, name: str) -> float:
        term = self.term(name)
        return term.seconds / self.seconds if term is not None and self.seconds > 0 else 0.0


@dataclass(frozen=True)
class StepConfig:
    """What one forward processes: model, hardware, formats, sharding and load."""

    model: ModelSpec
    hardware: HardwareSpec
    weights: FormatSpec
    kv: FormatSpec
    lm_head: FormatSpec
    batch: float
    context: float
    tp: int = 1
    query_tokens: int = 1
    state_writes: int = 1
    """Recurrent-state writes per sequence per step (1 plain; T on vLLM's native speculative path)."""
    expert_union: str = "expected"
    stages: int = 1
    """Pipeline stages (layer split): a token crosses them in turn, so their times add (bandwidth does not)."""
    gemv_rows: int = 0
    """Rows up to which the engine runs GEMMs with a matrix-vector kernel that stays memory-bound (0: none)."""
    gemv_row_cost: float = 0.0
    """Each row past the first of that kernel on block-quant weights adds this share of the one-row read
    (``kernels.py``: it dequantises and multiplies once per row)."""
    draft_catch_up: bool = False
    """The engine re-runs the draft head over each verified batch (``EngineProfile.draft_head_catch_up``)."""
    prompt_batch: int = 0
    """Prompt tokens per forward call (0: one call); ``EngineProfile.prompt_batch``."""
    prompt_ubatch: int = 0
    """Rows per pipelined micro-batch of a call over ``stages`` (0: none); ``EngineProfile.prompt_ubatch``."""
    dequant_gemm_rows: int = 0
    """Past this many rows a block-quant GEMM is dequantized to fp16 and run as a 16-bit GEMM (0: never);
    ``EngineProfile.dequant_gemm_rows`` where the build and GPU took that path (``Scenario.step_config``)."""
    score_bytes: float = 0.0
    """Bytes of memory traffic per attention score a prefill materializes (0: fused attention, none);
    ``EngineProfile.score_bytes`` where the build ran without flash attention (``Scenario.step_config``)."""
    root_sync: RootSync | None = None
    """The engine syncs its TP slices through a root node's port (``sync.py``) instead of ring all-reduces."""
    notes: list[str] = field(default_factory=list)


def op_time(bytes_: float, flops: float, bandwidth: float, peak: float | None, eff: Efficiency) -> tuple[float, str]:
    """``max(bytes/(η_m·BW), flops/(η_c·P))`` and which side bound it."""
    t_mem = bytes_ / (eff.eta_m * bandwidth)
    t_comp = flops / (eff.eta_c * peak) if peak else 0.0
    return (t_comp, "compute") if t_comp > t_mem else (t_mem, "memory")


def kv_shards(model: ModelSpec, tp: int) -> int:
    """How many ways the KV cache is split by TP (KV heads; MLA's latent is replicated)."""
    if model.attention == "mla":
        return 1
    return max(1, min(tp, model.num_kv_heads))


def forward_terms(cfg: StepConfig, eff: Efficiency) -> list[Term]:
    """The memory/compute terms of one target forward (decode when T=1, verify when T>1)."""
    m, hw, tp = cfg.model, cfg.hardware, max(cfg.tp, 1)
    tokens = cfg.batch * cfg.query_tokens
    verify = cfg.query_tokens > 1
    terms: list[Term] = []

    _, peak_w, _ = hw.gemm_peak(cfg.weights.id)
    if tokens <= cfg.gemv_rows:
        peak_w = None  # the engine's matrix-vector kernel: memory-bound at these few rows
    w_bytes = m.body_params_streamed(tokens, cfg.expert_union) * cfg.weights.bytes_per_param / tp
    w_flops = 2.0 * tokens * m.body_params_active / tp
    secs, bound = op_time(w_bytes, w_flops, hw.bandwidth, peak_w, eff)
    rows_factor = gemv_rows_factor(tokens, cfg.gemv_rows, cfg.gemv_row_cost, cfg.weights.id)
    secs *= rows_factor
    detail = f"N={tokens:g} rows" + (f", matrix-vector × {rows_factor:.3g} for the rows" if rows_factor > 1 else "")
    if m.is_moe:
        detail += f", {m.expert_union(tokens) if cfg.expert_union == 'expected' else m.experts_active:.1f} experts/layer"
    terms.append(Term("weights", secs, w_bytes, w_flops, bound, detail))

    _, peak_h, _ = hw.gemm_peak(cfg.lm_head.id)
    if tokens <= cfg.gemv_rows:
        peak_h = None
    h_bytes = m.lm_head_params * cfg.lm_head.bytes_per_param / tp
    h_flops = 2.0 * tokens * m.lm_head_params / tp
    secs, bound = op_time(h_bytes, h_flops, hw.bandwidth, peak_h, eff)
    secs *= gemv_rows_factor(tokens, cfg.gemv_rows, cfg.gemv_row_cost, cfg.lm_head.id)
    terms.append(Term("lm_head", secs, h_bytes, h_flops, bound, f"V·H={m.lm_head_params:.3g}"))

    _, peak_a, _ = hw.gemm_peak("bf16")
    a_bytes = cfg.batch * m.kv_bytes_per_sequence(cfg.context, cfg.kv.bytes_per_param) / kv_shards(m, tp)
    a_flops = tokens * m.attention_flops_per_query(cfg.context) / tp
    attn_eff = eff if eff.eta_attn is None else replace(eff, eta_m=eff.eta_attn)
    secs, bound = op_time(a_bytes, a_flops, hw.bandwidth, peak_a, attn_eff)
    if verify:
        phi = verify_factor(eff, cfg.query_tokens)
        terms.append(Term("verify_attention", secs * phi, a_bytes, a_flops, bound,
                          f"φ(T={cfg.query_tokens})={phi:.3g} × KV of {cfg.context:g} tokens"))
    else:
        terms.append(Term("attention", secs, a_bytes, a_flops, bound, f"KV of {cfg.context:g} tokens"))

    if m.recurrent_state_bytes > 0:
        s_bytes = cfg.batch * m.recurrent_state_bytes * (1 + cfg.state_writes) / tp
        secs, bound = op_time(s_bytes, 0.0, hw.bandwidth, None, eff)
        terms.append(Term("recurrent_state", secs, s_bytes, 0.0, bound,
                          f"1 read + {cfg.state_writes} write(s) per sequence"))

    if cfg.root_sync is not None:
        terms.extend(root_sync_terms(cfg.root_sync, tokens, cfg, eff))
    else:
        terms.extend(allreduce_terms(m.allreduces_per_forward, tokens, m.hidden, hw, tp, eff, "tp_allreduce"))
    terms.extend(pipeline_terms(cfg, tokens, eff))
    return terms


def pipeline_terms(cfg: StepConfig, tokens: float, eff: Efficiency) -> list[Term]:
    """Layer split over ``stages`` devices: each stage reads only its layers, but a token visits the stages one
    after another, so the stages' memory times add up to one device reading the whole model (the terms above,
    unchanged) and each boundary adds one activation hop (latency + ``tokens × hidden`` bytes over the link)."""
    hops = cfg.stages - 1
    if hops <= 0 or not eff.links:
        return []
    link = cfg.hardware.link_bandwidth or eff.link_bandwidth
    payload = tokens * cfg.model.hidden * ACTIVATION_BYTES
    return [Term("pipeline_hops", hops * (eff.allreduce_latency + payload / link), hops * payload, 0.0, "fixed",
                 f"{hops} stage boundaries (layer split over {cfg.stages} devices)")]


def root_sync_terms(sync: RootSync, tokens: float, cfg: StepConfig, eff: Efficiency) -> list[Term]:
    """The TP syncs of a root-node engine: ``tokens × root_sync_bytes`` over the root's link, no latency
    (``sync.py``)."""
    tp = max(cfg.tp, 1)
    if tp <= 1 or not eff.links:
        return []
    link = cfg.hardware.link_bandwidth or eff.link_bandwidth
    payload = tokens * root_sync_bytes(sync, cfg.model.n_layers, cfg.model.hidden, tp)
    return [Term("root_sync", payload / link, payload, 0.0, "fixed",
                 f"{sync.vectors_per_layer_per_worker} vectors × {cfg.model.n_layers} layers × {tp - 1} workers "
                 f"through the root's port")]


def verify_factor(eff: Efficiency, query_tokens: int) -> float:
    """φ(T): ``T^phi_exp`` when an exponent is set, else the constant ``phi``."""
    return float(query_tokens) ** eff.phi_exp if eff.phi_exp is not None else eff.phi


def allreduce_terms(count: int, tokens: float, hidden: int, hw: HardwareSpec, tp: int, eff: Efficiency,
                    name: str) -> list[Term]:
    """Ring all-reduces of ``tokens × hidden`` activations: α per call + 2(TP−1)/TP · bytes / link."""
    if tp <= 1 or count == 0 or not eff.links:
        return []
    link = hw.link_bandwidth or eff.link_bandwidth
    payload = tokens * hidden * ACTIVATION_BYTES
    per_call = eff.allreduce_latency + 2.0 * (tp - 1) / tp * payload / link
    return [Term(name, count * per_call, count * payload, 0.0, "fixed", f"{count} all-reduces over TP={tp}")]


def with_overhead(terms: list[Term], eff: Efficiency, layers: int = 0) -> StepTime:
    """A step made of ``terms`` plus the per-step overhead: ``t0_layer × layers`` when ``t0_layer`` is set, else
    t0 (when non-zero)."""
    if eff.t0_layer is not None and layers > 0:
        terms = [*terms, Term("overhead", eff.t0_layer * layers, bound="fixed",
                              detail=f"{layers} layers × t0_layer {eff.t0_layer * 1e6:.3g} µs")]
    elif eff.t0 > 0:
        terms = [*terms, Term("overhead", eff.t0, bound="fixed", detail="per-step overhead t0")]
    return StepTime(tuple(terms))


def step_time(cfg: StepConfig, eff: Efficiency) -> StepTime:
    """One plain (or verify) step: forward terms + per-step overhead."""
    return with_overhead(forward_terms(cfg, eff), eff, cfg.model.n_layers)


__all__ = [
    "IDEAL",
    "Efficiency",
    "StepConfig",
    "StepTime",
    "Term",
    "allreduce_terms",
    "forward_terms",
    "kv_shards",
    "op_time",
    "pipeline_terms",
    "root_sync_terms",
    "step_time",
    "verify_factor",
    "with_overhead",
]
