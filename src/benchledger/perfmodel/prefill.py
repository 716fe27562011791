"""Prefill: the forward over a request's ``P`` prompt tokens, hence TTFT and prefill tok/s of a request arriving
alone (no queueing behind other requests; closed-loop TTFT at concurrency > 1 also waits for other work).

One forward over ``N = P`` rows (per device, after TP sharding; layer-split stages add, as for decode):

- GEMMs: ``max(W_streamed·b_w, 2·N·P_body / (η_p·peak))`` — compute-bound for any real prompt; where the build
  dequantizes block-quant weights for GEMMs of more than ``StepConfig.dequant_gemm_rows`` rows (llama.cpp's CUDA
  builds before 2024-06-24, ``engines/llamacpp.py``), each micro-batch first writes the weights out as fp16
  (``prefill_dequant``: read ``b_w``, write 2 bytes a parameter, memory-bound) and the GEMM reads those fp16
  weights at the 16-bit peak; such a build's 16-bit cuBLAS GEMMs (of dequantized or fp16 weights, and of the
  unfused attention) accumulate in fp16, at the part's FP16-accumulate rate (``kernels.cublas_fp16_peak``);
- lm_head: once, for the last position only;
- causal attention: ``Σ_{i<P} flops_per_query(i) ≈ flops_per_query(P)·P/2`` (sliding layers capped at their
  window), and the KV write ``P · KV/token``; where the engine materializes the attention scores
  (``StepConfig.score_bytes``: llama.cpp without flash attention), each micro-batch's ``rows × n_kv`` scores per
  head and layer cost ``score_bytes`` of memory traffic (``prefill_attention_scores``, ``score_elements``);
- TP all-reduces over ``N × hidden`` activations, one hop per stage boundary;
- a fixed ``t0_prefill`` (scheduling, tokenization, first-token sampling and streaming).

Over a layer split the stages' times add, except where the engine cuts the prompt into micro-batches
(``StepConfig.prompt_ubatch``, llama.cpp's ``n_ubatch``) within each forward call (``prompt_batch``): the ``U``
micro-batches of a call then flow through the ``S`` stages as a pipeline, ``(U + S − 1)`` stage-times instead of
``U·S`` (``pipeline_factor``); micro-batches of equal cost and evenly split layers are assumed. Each micro-batch
streams the weights (for an MoE, the experts its rows touch) once, on one device or many.

``η_p`` (``eta_prefill``) and ``t0_prefill`` are fitted per (hardware, engine) from the ledger's TTFT and prefill
throughput results (``calibrate.py``); defaults are stated when none is fitted.
"""

from __future__ import annotations

import math
from dataclasses import replace

from benchledger.perfmodel.hardware import GGUF_MMQ_FAMILIES
from benchledger.perfmodel.kernels import cublas_fp16_peak
from benchledger.perfmodel.roofline import (
    ACTIVATION_BYTES,
    Efficiency,
    StepConfig,
    StepTime,
    Term,
    allreduce_terms,
    kv_shards,
    op_time,
)


def _calls(rows: float, batch: int, ubatch: int) -> list[int]:
    """Micro-batches in each forward call of a ``rows``-row prefill (one call of one micro-batch without them)."""
    if ubatch <= 0:
        return [1]
    per_call = float(batch) if batch > 0 else rows
    calls, rest = divmod(rows, per_call)
    sizes = [per_call] * int(calls) + ([rest] if rest > 0 else [])
    return [math.ceil(size / ubatch) for size in sizes]


def micro_batches(rows: float, batch: int, ubatch: int) -> int:
    """How many micro-batches of at most ``ubatch`` rows a ``rows``-row prefill runs in (calls of ``batch``)."""
    return sum(_calls(rows, batch, ubatch))


def pipeline_factor(rows: float, stages: int, batch: int, ubatch: int) -> float:
    """Pipelined / serial time of a prefill of ``rows`` rows over ``stages`` layer-split stages, in forward calls of
    ``batch`` rows (0: one call) cut into micro-batches of ``ubatch`` rows: ``Σ (U_i + S − 1) / (S · Σ U_i)`` over
    the calls, ``U_i`` micro-batches in call ``i``; 1 without stages or micro-batches."""
    if stages <= 1 or ubatch <= 0 or rows <= ubatch:
        return 1.0
    micro = _calls(rows, batch, ubatch)
    return sum(u + stages - 1 for u in micro) / (stages * sum(micro))


DEQUANT_BYTES = 2.0
"""Bytes a parameter of the fp16 copy a dequantizing build writes, and its GEMM reads."""


def dequantized(cfg: StepConfig, rows: float) -> bool:
    """Whether a GEMM of ``rows`` rows on ``cfg``'s block-quant weights runs on an fp16 copy of them
    (``StepConfig.dequant_gemm_rows``)."""
    family = cfg.weights.id.split("-")[0].split("_")[0].lower()
    return 0 < cfg.dequant_gemm_rows < rows and family in GGUF_MMQ_FAMILIES


KV_PAD = 256
"""llama.cpp attends ``n_kv = max(256, GGML_PAD(cell_max, 256))`` cache cells (source llama-cpp-llm-build-kqv-dc685be)."""


def score_elements(prompt: float, ubatch: int) -> float:
    """Attention scores one head of one layer materializes over a ``prompt``-token prefill in micro-batches of
    ``ubatch`` rows (one of ``prompt`` rows when 0): each micro-batch's rows × the ``n_kv`` cells filled so far,
    padded to ``KV_PAD``, masked but computed in full."""
    rows = max(math.ceil(prompt), 1)
    step = ubatch if ubatch > 0 else rows
    total, done = 0.0, 0
    while done < rows:
        size = min(step, rows - done)
        done += size
        total += size * max(KV_PAD, math.ceil(done / KV_PAD) * KV_PAD)
    return total


def prefill_time(cfg: StepConfig, prompt: float, eff: Efficiency, sequences: int = 1) -> StepTime:
    """Terms of one prefill forward over ``prompt`` tokens of each of ``sequences`` requests prefilled together
    (see the module docstring): the GEMMs see ``sequences × prompt`` rows and read the weights once, each
    request's causal attention covers its own prompt only, the lm_head runs once per request."""
    m, hw, tp = cfg.model, cfg.hardware, max(cfg.tp, 1)
    seqs = max(sequences, 1)
    n = max(prompt, 1.0) * seqs
    p = max(prompt, 1.0)
    compute = replace(eff, eta_c=eff.eta_prefill)
    micro = micro_batches(n, cfg.prompt_batch, cfg.prompt_ubatch)
    rows = n / micro  # each micro-batch streams the weights (the experts its rows touch) once
    params = micro * m.body_params_streamed(rows, cfg.expert_union) / tp
    dequant = dequantized(cfg, rows)
    legacy = cfg.dequant_gemm_rows > 0 and (dequant or cfg.weights.id == "fp16")  # cuBLAS at CUBLAS_COMPUTE_16F
    peak_w = cublas_fp16_peak(hw)[0] if legacy else hw.gemm_peak(cfg.weights.id)[1]
    w_bytes = params * (DEQUANT_BYTES if dequant else cfg.weights.bytes_per_param)
    w_flops = 2.0 * n * m.body_params_active / tp
    secs, bound = op_time(w_bytes / micro, w_flops / micro, hw.bandwidth, peak_w, compute)
    terms = [Term("prefill_gemm", secs * micro, w_bytes, w_flops, bound,
                  f"N={n:g} prompt rows" + (f" in {micro} micro-batches" if micro > 1 else "")
                  + (": fp16 GEMM of the dequantized weights" if dequant else ""))]
    if dequant:
        d_bytes = params * (cfg.weights.bytes_per_param + DEQUANT_BYTES)
        secs, bound = op_time(d_bytes, 0.0, hw.bandwidth, None, compute)
        terms.append(Term("prefill_dequant", secs, d_bytes, 0.0, bound,
                          f"{cfg.weights.id} weights written out as fp16 once per micro-batch ({micro})"))
    _, peak_h, _ = hw.gemm_peak(cfg.lm_head.id)
    h_bytes = m.lm_head_params * cfg.lm_head.bytes_per_param / tp
    h_flops = 2.0 * seqs * m.lm_head_params / tp
    secs, bound = op_time(h_bytes, h_flops, hw.bandwidth, peak_h, compute)
    terms.append(Term("prefill_lm_head", secs, h_bytes, h_flops, bound, "last position"))
    peak_a = cublas_fp16_peak(hw)[0] if cfg.score_bytes > 0 else hw.gemm_peak("bf16")[1]
    a_flops = seqs * m.attention_flops_per_query(p) * p / 2.0 / tp
    a_bytes = n * m.kv_bytes_per_token(cfg.kv.bytes_per_param) / kv_shards(m, tp)
    secs, bound = op_time(a_bytes, a_flops, hw.bandwidth, peak_a, compute)
    terms.append(Term("prefill_attention", secs, a_bytes, a_flops, bound,
                      f"causal over {p:g} tokens" + (f" × {seqs} requests" if seqs > 1 else "")))
    if cfg.score_bytes > 0:
        scores = seqs * m.num_heads * (m.layers_full + m.layers_sliding) * score_elements(p, cfg.prompt_ubatch) / tp
        s_bytes = scores * cfg.score_bytes
        secs, bound = op_time(s_bytes, 0.0, hw.bandwidth, None, compute)
        terms.append(Term("prefill_attention_scores", secs, s_bytes, 0.0, bound,
                          f"{scores:.4g} attention scores written and read, {cfg.score_bytes:g} bytes each"))
    terms.extend(allreduce_terms(m.allreduces_per_forward, n, m.hidden, hw, tp, eff, "prefill_allreduce"))
    overlap = pipeline_factor(n, cfg.stages, cfg.prompt_batch, cfg.prompt_ubatch)
    if overlap < 1.0:
        terms = [replace(t, seconds=t.seconds * overlap,
                         detail=f"{t.detail}; micro-batches of {cfg.prompt_ubatch} pipelined over {cfg.stages} "
                                f"stages (× {overlap:.3g})") for t in terms]
    hops = cfg.stages - 1
    if hops > 0 and eff.links:
        link = hw.link_bandwidth or eff.link_bandwidth
        payload = n * m.hidden * ACTIVATION_BYTES
        terms.append(Term("prefill_pipeline_hops", hops * (eff.allreduce_latency + payload / link), hops * payload,
                          0.0, "fixed", f"{hops} stage boundaries"))
    if eff.t0_prefill > 0:
        terms.append(Term("prefill_overhead", eff.t0_prefill, bound="fixed", detail="t0_prefill"))
    return StepTime(tuple(terms))


__all__ = ["DEQUANT_BYTES", "KV_PAD", "dequantized", "micro_batches", "pipeline_factor", "prefill_time",
           "score_elements"]
