"""The fit's physics and data fixes, each on a hand-computed case: the soft-L1 loss, a GGUF file's lm_head
format, a batch's prefill, and an output throughput over whole requests that counts their prefill."""

from __future__ import annotations

import math

import pytest

from benchledger.perfmodel.architecture import ModelSpec
from benchledger.perfmodel.calibrate import Observation, fit, predicted_value, soft_l1
from benchledger.perfmodel.formats import FormatSpec
from benchledger.perfmodel.hardware import HardwareSpec
from benchledger.perfmodel.inputs import default_lm_head, served_batch
from benchledger.perfmodel.predict import Params, Scenario, predict
from benchledger.perfmodel.prefill import prefill_time
from benchledger.perfmodel.roofline import Efficiency

BF16 = FormatSpec("bf16", 2.0)


def _scenario(model: ModelSpec, hw: HardwareSpec, concurrency: int) -> Scenario:
    return Scenario(model=model, hardware=hw, weights=BF16, kv=BF16, lm_head=BF16, context=192.0,
                    concurrency=concurrency)


def test_soft_l1_is_square_for_small_errors_and_linear_for_large() -> None:
    assert soft_l1(0.2, 0.2) == pytest.approx(2 * 0.04 * (math.sqrt(2) - 1))  # 0.033137
    assert soft_l1(0.01, 0.2) == pytest.approx(0.01 ** 2, rel=1e-3)
    assert soft_l1(2.0, 0.2) == pytest.approx(2 * 0.2 * 2.0, rel=0.11)  # ≈ 2s·|e|: an 7× outlier weighs ~0.8, not 4


def test_gguf_k_quants_keep_the_lm_head_in_q6_k() -> None:
    assert default_lm_head("q4-k-m")[0] == "q6-k"  # llama.cpp's quantizer: output.weight → Q6_K
    assert default_lm_head("ud-q4-k-xl")[0] == "q6-k"
    assert default_lm_head("q8-0")[0] == "q8-0"  # a Q8_0 file keeps its output in Q8_0
    assert default_lm_head("fp8-e4m3")[0] == "bf16"  # vLLM / TRT checkpoints keep a bf16 lm_head
    assert default_lm_head("fp16")[0] == "fp16"


def test_a_batch_prefill_reads_weights_once_and_attends_per_request(llama8b: ModelSpec, h100: HardwareSpec) -> None:
    eff = Efficiency(eta_prefill=0.5, t0_prefill=0.0)
    one = prefill_time(_scenario(llama8b, h100, 1).step_config(), 128.0, eff)
    four = prefill_time(_scenario(llama8b, h100, 4).step_config(), 128.0, eff, sequences=4)
    assert four.term("prefill_gemm").flops == pytest.approx(4 * one.term("prefill_gemm").flops)  # type: ignore[union-attr]
    assert four.term("prefill_gemm").bytes == one.term("prefill_gemm").bytes  # type: ignore[union-attr]
    # causal attention of 4 separate 128-token prompts, not of one 512-token prompt
    assert four.term("prefill_attention").flops == pytest.approx(4 * one.term("prefill_attention").flops)  # type: ignore[union-attr]


def test_whole_request_output_throughput_counts_the_prefill(llama8b: ModelSpec, h100: HardwareSpec) -> None:
    eff = Efficiency(eta_prefill=0.5, t0_prefill=0.0)
    sc = _scenario(llama8b, h100, 8)
    p = predict(sc, Params(eff))
    prefill = prefill_time(sc.step_config(), 128.0, eff, sequences=8).seconds
    expected = 8 * 128 / (prefill + 128 * p.tpot_ms / 1e3)  # B·n_out / (t_prefill(B prompts) + n_out·TPOT)
    whole = Observation("r#a", sc, "output_throughput", 1.0, (), (), prompt_tokens=128.0, output_tokens=128.0)
    assert predicted_value(whole, p, eff) == pytest.approx(expected)
    assert predicted_value(whole, p, eff) < p.aggregate_tok_s
    decode_only = Observation("r#a", sc, "output_throughput", 1.0, ())  # lengths unknown: decode rate
    assert predicted_value(decode_only, p, eff) == pytest.approx(p.aggregate_tok_s)


def test_a_slotted_server_decodes_at_most_its_slots() -> None:
    flags = "llama-server -m m.gguf -ngl 99 --parallel 4 -c 32768"
    assert served_batch("llama-cpp", flags, 16)[0] == 4  # 12 requests queue: TPOT is the 4-slot step
    assert served_batch("llama-cpp", "llama-server -np 8", 4) == (4, "")
    batch, note = served_batch("llama-cpp", "llama-server -m m.gguf", 16)
    assert batch == 16 and "unknown" in note  # never silently assumed
    assert served_batch("vllm", flags, 16) == (16, "")  # continuous batching: no slots
    assert served_batch("llama-cpp", None, 1) == (1, "")


def test_per_layer_overhead_scales_with_depth(llama8b: ModelSpec, qwen27b: ModelSpec, h100: HardwareSpec) -> None:
    eff = Efficiency(t0_layer=50e-6)
    shallow = predict(_scenario(llama8b, h100, 1), Params(eff)).step.term("overhead")
    deep = predict(_scenario(qwen27b, h100, 1), Params(eff)).step.term("overhead")
    assert shallow is not None and shallow.seconds == pytest.approx(32 * 50e-6)  # 32 layers × 50 µs = 1.6 ms
    assert deep is not None and deep.seconds == pytest.approx(64 * 50e-6)  # 16 full + 48 linear layers
    flat = predict(_scenario(llama8b, h100, 1), Params(Efficiency(t0=0.002))).step.term("overhead")
    assert flat is not None and flat.seconds == pytest.approx(0.002)  # t0 per step when t0_layer is unset


def test_a_per_layer_fit_recovers_the_overhead_of_two_depths(llama8b: ModelSpec, qwen27b: ModelSpec,
                                                            h100: HardwareSpec) -> None:
    true = Efficiency(eta_m=0.7, t0_layer=80e-6)
    obs = []
    for model in (llama8b, qwen27b):
        for c in (1, 2, 4):
            s = _scenario(model, h100, c)
            obs.append(Observation(f"{model.id}#c{c}", s, "tpot", predict(s, Params(true)).tpot_ms, ("src",)))
    result = fit(obs, per_layer=True)
    assert "t0_layer_us" in result.fitted and "t0_ms" not in result.fitted
    assert result.eff.t0_layer == pytest.approx(80e-6, rel=0.1)
    assert result.eff.eta_m == pytest.approx(0.7, rel=0.05)
