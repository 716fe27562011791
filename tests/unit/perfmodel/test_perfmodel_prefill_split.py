"""Prefill (TTFT, prefill tok/s), llama.cpp's layer split and its small-batch matrix-vector kernel."""

from __future__ import annotations

from dataclasses import replace

import pytest

from benchledger.perfmodel.architecture import ModelSpec
from benchledger.perfmodel.formats import FormatSpec
from benchledger.perfmodel.hardware import HardwareSpec
from benchledger.perfmodel.predict import Params, Scenario, predict
from benchledger.perfmodel.roofline import Efficiency
from benchledger.perfmodel.specdec import SpecConfig

BF16 = FormatSpec("bf16", 2.0)
Q4 = FormatSpec("q4-k-m", 0.6)


def scenario(model: ModelSpec, hw: HardwareSpec, **kw: object) -> Scenario:
    base = {"weights": BF16, "kv": BF16, "lm_head": BF16, "context": 1000.0, "concurrency": 1}
    base.update(kw)
    return Scenario(model=model, hardware=hw, **base)  # type: ignore[arg-type]


def test_prefill_is_compute_bound_and_gives_ttft(llama8b: ModelSpec, h100: HardwareSpec) -> None:
    eff = Efficiency(eta_prefill=0.5, t0_prefill=0.01)
    p = predict(scenario(llama8b, h100, prompt_tokens=4096.0), Params(eff))
    gemm = 2 * 4096 * llama8b.body_params_active / (0.5 * 989e12)
    assert p.ttft_ms is not None and p.prefill_tok_s is not None
    assert p.ttft_ms == pytest.approx((gemm + 0.01) * 1e3, rel=0.1)
    assert p.prefill_step is not None and p.prefill_step.term("prefill_gemm").bound == "compute"  # type: ignore[union-attr]
    longer = predict(scenario(llama8b, h100, prompt_tokens=8192.0), Params(eff))
    assert longer.ttft_ms > 1.9 * p.ttft_ms - 10  # type: ignore[operator]
    data = p.to_json()
    assert data["ttft_ms"] and data["prefill_tok_s"] and data["prefill_parameters"]["eta_prefill"]["origin"]


def test_no_compute_peak_no_prefill_prediction(llama8b: ModelSpec) -> None:
    bare = HardwareSpec("peakless", 900e9)
    assert predict(scenario(llama8b, bare)).ttft_ms is None


def test_layer_split_adds_stage_times_instead_of_bandwidth(llama8b: ModelSpec, h100: HardwareSpec) -> None:
    one = predict(scenario(llama8b, h100, weights=Q4, engine="llama-cpp"))
    hw4 = h100.with_count(4)
    split = predict(scenario(llama8b, hw4, weights=Q4, engine="llama-cpp", devices=4, tp=1, pp=4))
    tensor = predict(scenario(llama8b, hw4, weights=Q4, engine="vllm", devices=4, tp=4))
    assert split.tok_s_per_stream < one.tok_s_per_stream  # bandwidth does not add; hops cost a little
    assert split.tok_s_per_stream > 0.9 * one.tok_s_per_stream
    assert tensor.tok_s_per_stream > 1.2 * one.tok_s_per_stream  # TP: each device streams a quarter (+ t0, links)
    assert split.step.term("pipeline_hops") is not None


def test_llama_cpp_verify_of_few_tokens_stays_memory_bound(llama8b: ModelSpec, h100: HardwareSpec) -> None:
    slow_gemm = Params(Efficiency(eta_c=0.001))  # compute so slow that any compute-bound GEMM would dominate
    spec = SpecConfig("mtp", 7, acceptance_length=4.0)
    llama = predict(scenario(llama8b, h100, weights=Q4, engine="llama-cpp", spec=spec), slow_gemm)
    other = predict(scenario(llama8b, h100, weights=Q4, engine="vllm", spec=spec), slow_gemm)
    assert llama.step.term("weights").bound == "memory"  # type: ignore[union-attr]  # T = 8 rows ≤ 8
    assert other.step.term("weights").bound == "compute"  # type: ignore[union-attr]
    wide = predict(scenario(llama8b, h100, weights=Q4, engine="llama-cpp", concurrency=4, spec=spec), slow_gemm)
    assert wide.step.term("weights").bound == "compute"  # type: ignore[union-attr]  # 32 rows: MMQ/GEMM path
    assert replace(spec, k=7).query_tokens == 8
