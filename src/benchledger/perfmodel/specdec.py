"""Speculative decoding on top of the roofline: draft cost, verify step, accepted length and speedup.

With k drafts a step verifies ``T = k + 1`` query tokens per sequence:

    t_spec = Σ_{d=1..k} t_draft,d + t_verify(T) + t0        AL = 1 + Σ_{i≤k} r_i        S = AL · t_base / t_spec

Draft cost per method: MTP / EAGLE / Medusa heads stream their layer(s) plus the full lm_head once per draft step
(unless a truncated draft vocabulary is given), and on an engine that mirrors each verified batch into the head's
own KV (``StepConfig.draft_catch_up``, llama.cpp) MTP / EAGLE heads run their layer once more over the T verified
rows, without the lm_head (no logits are asked for); a draft model runs its own decode step (own weights, own KV);
DFlash/DSpark draft a whole block in one forward; n-gram / suffix drafting costs no device time.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from benchledger.perfmodel.architecture import ModelSpec
from benchledger.perfmodel.formats import FormatSpec
from benchledger.perfmodel.kernels import gemv_rows_factor
from benchledger.perfmodel.roofline import (
    Efficiency,
    StepConfig,
    StepTime,
    Term,
    allreduce_terms,
    forward_terms,
    kv_shards,
    op_time,
    with_overhead,
)

HEAD_METHODS = ("mtp", "eagle", "eagle3", "medusa", "other")
BLOCK_METHODS = ("dflash", "dspark")
FREE_METHODS = ("ngram", "suffix")
METHODS = (*HEAD_METHODS, *BLOCK_METHODS, *FREE_METHODS, "draft-model")
"""Every method the model costs (the ledger's ``SPEC_METHODS``); any other name is an error, not a guess."""


@dataclass(frozen=True)
class SpecConfig:
    """A speculative configuration: method, k, acceptance, and what the draft reads."""

    method: str
    k: int
    rates: tuple[float, ...] = ()
    """Unconditional per-position acceptance r_1..r_k (vLLM's 'per-position acceptance rate')."""
    acceptance_length: float | None = None
    draft_model: ModelSpec | None = None
    draft_format: FormatSpec | None = None
    """Format of the draft head / draft model weights (None: the lm_head format)."""
    draft_vocab: int | None = None
    """Truncated draft vocabulary (FR-Spec / EAGLE-3 hot vocab); None: the full vocabulary."""
    state_snapshots: bool = True
    """Hybrid models: one recurrent-state snapshot per verified position (vLLM's native path)."""

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"unknown speculative method {self.method!r}: one of {', '.join(METHODS)}")
        if self.k < 1:
            raise ValueError(f"speculative k must be ≥ 1 (got {self.k})")

    @property
    def query_tokens(self) -> int:
        return self.k + 1


def acceptance_length(k: int, rates: tuple[float, ...] = (), given: float | None = None) -> float:
    """``AL = 1 + Σ_{i≤k} r_i`` from per-position survival rates, or the given mean accepted length."""
    if given is not None:
        if not 1.0 <= given <= k + 1:
            raise ValueError(f"acceptance length {given} outside [1, k+1={k + 1}]")
        return given
    if len(rates) < k:
        raise ValueError(f"{len(rates)} per-position rates given for k={k}: need one per draft position")
    if any(not 0.0 <= r <= 1.0 for r in rates):
        raise ValueError("per-position acceptance rates must lie in [0, 1]")
    return 1.0 + sum(rates[:k])


def draft_terms(cfg: StepConfig, spec: SpecConfig, eff: Efficiency) -> list[Term]:
    """Device time of all k draft steps of one speculative step (one term per cost, summed over steps)."""
    m, hw, tp = cfg.model, cfg.hardware, max(cfg.tp, 1)
    method = spec.method
    if method in FREE_METHODS or spec.k == 0:
        return []
    if method == "draft-model":
        if spec.draft_model is None:
            raise ValueError("method 'draft-model' needs the draft model's architecture")
        fmt = spec.draft_format or cfg.weights
        draft_cfg = replace(cfg, model=spec.draft_model, weights=fmt, query_tokens=1, state_writes=1)
        one = forward_terms(draft_cfg, eff)
        scaled = [Term(f"draft_{t.name}", t.seconds * spec.k, t.bytes * spec.k, t.flops * spec.k, t.bound,
                       f"{spec.k} draft-model steps") for t in one]
        return scaled + draft_overhead_terms(spec.k, eff)
    steps = 1 if method in BLOCK_METHODS else spec.k
    rows = cfg.batch * (spec.k if method in BLOCK_METHODS else 1)
    fmt = spec.draft_format or cfg.lm_head
    _, peak_d, _ = hw.gemm_peak(fmt.id)
    gemv = rows <= cfg.gemv_rows  # the engine's matrix-vector kernel: memory-bound at these few rows
    peak_d = None if gemv else peak_d
    layers = max(m.mtp_layers, 1)
    layer_params = m.mtp_layer_params * (layers if m.mtp_params is None else 1)
    d_bytes = layer_params * fmt.bytes_per_param / tp
    d_flops = 2.0 * rows * layer_params / tp
    secs, bound = op_time(d_bytes, d_flops, hw.bandwidth, peak_d, eff)
    secs *= gemv_rows_factor(rows, cfg.gemv_rows, cfg.gemv_row_cost, fmt.id)
    est = " (estimated: one average layer + 2H² projection)" if m.mtp_params_estimated else ""
    terms = [Term("draft_layer", secs * steps, d_bytes * steps, d_flops * steps, bound,
                  f"{steps} × {layer_params:.3g} params{est}")]

    vocab = spec.draft_vocab or m.vocab
    _, peak_h, _ = hw.gemm_peak(cfg.lm_head.id)
    peak_h = None if gemv else peak_h
    h_bytes = vocab * m.hidden * cfg.lm_head.bytes_per_param / tp
    h_flops = 2.0 * rows * vocab * m.hidden / tp
    secs, bound = op_time(h_bytes, h_flops, hw.bandwidth, peak_h, eff)
    secs *= gemv_rows_factor(rows, cfg.gemv_rows, cfg.gemv_row_cost, cfg.lm_head.id)
    terms.append(Term("draft_lm_head", secs * steps, h_bytes * steps, h_flops * steps, bound,
                      f"{steps} × lm_head V={vocab}"))

    # the draft layer's own KV: one full-attention layer over the context
    kv_layer = m.kv_elements_per_token_layer * cfg.kv.bytes_per_param * cfg.context * cfg.batch
    a_bytes = kv_layer * layers / kv_shards(m, tp)
    secs, bound = op_time(a_bytes, 0.0, hw.bandwidth, None, eff)
    terms.append(Term("draft_attention", secs * steps, a_bytes * steps, 0.0, bound, "draft layer KV"))
    terms.extend(allreduce_terms(2 * layers * steps, cfg.batch, m.hidden, hw, tp, eff, "draft_allreduce"))
    terms.extend(draft_overhead_terms(steps, eff))
    if cfg.draft_catch_up and method in CATCH_UP_METHODS:
        terms.extend(catch_up_terms(cfg, spec, eff, d_bytes, layer_params, a_bytes))
    return terms


CATCH_UP_METHODS = ("mtp", "eagle", "eagle3")
"""Head methods whose engine-side ``process()`` re-runs the head over the verified batch (llama.cpp's MTP and
EAGLE3 implementations; ``engines/llamacpp.py``)."""


def catch_up_terms(cfg: StepConfig, spec: SpecConfig, eff: Efficiency, layer_bytes: float, layer_params: float,
                   kv_bytes: float) -> list[Term]:
    """One more head forward over the ``batch × T`` verified rows: its layer weights read once, its KV over the
    context read once, one fixed draft-forward cost; no lm_head (the rows ask for no logits)."""
    hw, tp = cfg.hardware, max(cfg.tp, 1)
    rows = cfg.batch * spec.query_tokens
    fmt = spec.draft_format or cfg.lm_head
    _, peak, _ = hw.gemm_peak(fmt.id)
    peak = None if rows <= cfg.gemv_rows else peak
    secs, bound = op_time(layer_bytes, 2.0 * rows * layer_params / tp, hw.bandwidth, peak, eff)
    secs *= gemv_rows_factor(rows, cfg.gemv_rows, cfg.gemv_row_cost, fmt.id)
    a_secs, _ = op_time(kv_bytes, 0.0, hw.bandwidth, None, eff)
    return [Term("draft_catch_up", secs + a_secs + eff.t0_draft, layer_bytes + kv_bytes, 2.0 * rows * layer_params / tp,
                 bound, f"head re-run over {rows:g} verified rows (engine mirrors the verify batch)")]


def draft_overhead_terms(steps: int, eff: Efficiency) -> list[Term]:
    """``steps × t0_draft``: the fixed cost of each draft forward (launch, sampling, bookkeeping)."""
    if steps <= 0 or eff.t0_draft <= 0:
        return []
    return [Term("draft_overhead", steps * eff.t0_draft, bound="fixed", detail=f"{steps} × t0_draft")]


def spec_step_time(cfg: StepConfig, spec: SpecConfig, eff: Efficiency) -> StepTime:
    """One speculative step: k drafts + verify over T = k+1 tokens + t0."""
    writes = spec.query_tokens if spec.state_snapshots else 1
    verify_cfg = replace(cfg, query_tokens=spec.query_tokens, state_writes=writes)
    return with_overhead(draft_terms(cfg, spec, eff) + forward_terms(verify_cfg, eff), eff, cfg.model.n_layers)


__all__ = [
    "BLOCK_METHODS",
    "CATCH_UP_METHODS",
    "FREE_METHODS",
    "HEAD_METHODS",
    "METHODS",
    "SpecConfig",
    "acceptance_length",
    "catch_up_terms",
    "draft_overhead_terms",
    "draft_terms",
    "spec_step_time",
]
