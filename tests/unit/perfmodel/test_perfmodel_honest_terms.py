"""Terms and fit rules of the 2026-12 physics pass: campaign halves, equal campaign weights in the prefill fit,
the GGUF int8 (MMQ) GEMM peak, llama.cpp's draft-head catch-up forward and its per-position state snapshots.
Each expectation is computed by hand from the inputs written here."""

from __future__ import annotations

import pytest

from benchledger.perfmodel.accuracy import hold_out_prefill
from benchledger.perfmodel.architecture import ModelSpec
from benchledger.perfmodel.calibrate_prefill import PrefillObservation, predicted_prefill
from benchledger.perfmodel.campaigns import campaign_half
from benchledger.perfmodel.formats import FormatSpec
from benchledger.perfmodel.hardware import HardwareSpec
from benchledger.perfmodel.inputs import snapshots_per_position
from benchledger.perfmodel.predict import Params, Scenario, predict
from benchledger.perfmodel.roofline import Efficiency
from benchledger.perfmodel.specdec import SpecConfig

BF16 = FormatSpec("bf16", 2.0)
Q4 = FormatSpec("q4-k-m", 0.6)
Q6 = FormatSpec("q6-k", 0.8203125)


def test_campaign_halves_follow_the_parity_of_the_first_sha256_byte() -> None:
    # sha256("blogs.oracle.com") starts 0x2a (even), sha256("github.com/intel/llm-scaler") 0xad (odd)
    assert campaign_half("blogs.oracle.com") == "development"
    assert campaign_half("github.com/intel/llm-scaler") == "sealed"


def test_gguf_block_quants_use_the_published_int8_peak_and_never_a_derived_one() -> None:
    ada = HardwareSpec("ada", 1008e9, {"bf16": 165.2e12, "int8": 660.6e12})
    assert ada.gemm_peak("q4-k-m")[:2] == ("int8", 660.6e12)
    assert ada.gemm_peak("ud-q4-k-xl")[:2] == ("int8", 660.6e12)
    assert ada.gemm_peak("bf16")[:2] == ("bf16", 165.2e12)  # a 16-bit file stays on the 16-bit peak
    no_int8 = HardwareSpec("apple", 546e9, {"fp16": 34e12})
    assert no_int8.gemm_peak("q8-0")[:2] == ("fp16", 34e12)  # not 2 × 34 by the usual ratio


def _prefill_obs(ref: str, hw: HardwareSpec, model: ModelSpec, tok_s: float) -> PrefillObservation:
    sc = Scenario(model=model, hardware=hw, weights=BF16, kv=BF16, lm_head=BF16, context=4096.0, concurrency=1,
                  engine="e", prompt_tokens=4096.0)
    return PrefillObservation(ref, sc, "prefill_throughput", tok_s, 4096.0)


def test_the_prefill_fit_weighs_campaigns_by_pooling_not_by_arm_count(llama8b: ModelSpec) -> None:
    """Campaigns A and B (three arms each) reach η_p = 0.1 and 0.4: held out, campaign C's parameters sit near the
    geometric mean 0.2 (equal campaigns weigh the same, symmetric loss). With A at five arms and B at one, A weighs
    5/6 against B's 1/2 (``pooling.campaign_weights``), not 5 against 1: C's η_p moves towards A, but stays above
    the fit that weighs every arm alike."""
    from benchledger.perfmodel.calibrate_prefill import fit_prefill_pooled

    hw = HardwareSpec("gpu", 3000e9, {"bf16": 1000e12})
    probe = _prefill_obs("probe#x", hw, llama8b, 1.0)
    unit = predicted_prefill(probe, Efficiency(eta_prefill=1.0, t0_prefill=0.0))  # tok/s at η_p = 1
    campaign = {"a": "A", "b": "B", "c": "C"}

    def eta_of_c(a_arms: int, b_arms: int) -> float:
        obs = [_prefill_obs(f"a{i}#x", hw, llama8b, 0.1 * unit) for i in range(a_arms)]
        obs += [_prefill_obs(f"b{i}#x", hw, llama8b, 0.4 * unit) for i in range(b_arms)]
        obs.append(_prefill_obs("c#x", hw, llama8b, 0.3 * unit))
        scored = {s.obs.ref: s for s in hold_out_prefill(obs, lambda o: campaign[o.ref[0]])}
        assert scored["c#x"].training_arms == a_arms + b_arms
        return scored["c#x"].predicted / unit

    assert eta_of_c(3, 3) == pytest.approx(0.2, rel=0.1)
    unequal = eta_of_c(5, 1)
    train = [_prefill_obs(f"a{i}#x", hw, llama8b, 0.1 * unit) for i in range(5)]
    train.append(_prefill_obs("b0#x", hw, llama8b, 0.4 * unit))
    every_arm_alike = fit_prefill_pooled(train, weights=[1.0] * 6)
    assert every_arm_alike.eff.eta_prefill < unequal < 0.2


def _mtp(model: ModelSpec, hw: HardwareSpec, engine: str, k: int = 2) -> Scenario:
    return Scenario(model=model, hardware=hw, weights=Q4, kv=BF16, lm_head=Q6, context=1000.0, concurrency=1,
                    engine=engine, spec=SpecConfig("mtp", k, acceptance_length=2.0,
                                                   state_snapshots=snapshots_per_position(engine)))


def test_llama_cpp_re_runs_the_mtp_head_over_the_verified_rows(qwen27b: ModelSpec) -> None:
    hw = HardwareSpec("gpu", 1000e9, {"bf16": 100e12})
    eff = Efficiency(eta_m=0.5, t0_draft=0.001)
    llama = predict(_mtp(qwen27b, hw, "llama-cpp"), Params(eff))
    vllm = predict(_mtp(qwen27b, hw, "vllm"), Params(eff))
    assert vllm.step.term("draft_catch_up") is None
    term = llama.step.term("draft_catch_up")
    assert term is not None
    # the 0.42e9-parameter head in Q6_K read once (3 rows ≤ 8: matrix-vector, memory-bound), plus its one layer's KV
    # over 1000 tokens (4 KV heads × 256 × 2 (K, V) × 2 bytes), plus one t0_draft; no lm_head
    layer = 0.42e9 * 0.8203125 / (0.5 * 1000e9)
    kv = 4 * 256 * 2 * 2.0 * 1000 / (0.5 * 1000e9)
    assert term.seconds == pytest.approx(layer + kv + 0.001, rel=1e-6)
    # every other term is the same on both engines here (all memory-bound; both snapshot the state per position)
    assert llama.step.seconds - vllm.step.seconds == pytest.approx(term.seconds, rel=1e-6)


def test_llama_cpp_writes_one_recurrent_state_snapshot_per_verified_position(qwen27b: ModelSpec) -> None:
    hw = HardwareSpec("gpu", 1000e9, {"bf16": 100e12})
    eff = Efficiency(eta_m=0.5)
    assert snapshots_per_position("llama-cpp") is True
    step = predict(_mtp(qwen27b, hw, "llama-cpp", k=2), Params(eff)).step
    state = step.term("recurrent_state")
    assert state is not None
    # 144 MiB state: one read + T = 3 writes per verify step
    assert state.bytes == pytest.approx(144 * 2**20 * 4)
    assert state.seconds == pytest.approx(144 * 2**20 * 4 / (0.5 * 1000e9))


def test_llama_cpp_pipelines_a_prompt_s_micro_batches_over_its_layer_split() -> None:
    from benchledger.perfmodel.prefill import micro_batches, pipeline_factor

    # a 4096-token prompt: two calls of 2048 tokens, four 512-row micro-batches each, over 4 stages:
    # (4 + 3) + (4 + 3) stage-times instead of 4 · 8
    assert pipeline_factor(4096, 4, 2048, 512) == pytest.approx(14 / 32)
    assert pipeline_factor(4096, 1, 2048, 512) == 1.0  # one device: nothing to overlap
    assert pipeline_factor(512, 8, 2048, 512) == 1.0  # one micro-batch: the stages run one after another
    assert micro_batches(3000, 2048, 512) == 6  # 2048 → 4, 952 → 2


def test_a_layer_split_prefill_is_pipelined_and_a_tensor_split_one_is_not(llama8b: ModelSpec) -> None:
    hw = HardwareSpec("gpu", 1000e9, {"bf16": 100e12}).with_count(4)
    eff = Efficiency(eta_prefill=0.5, t0_prefill=0.0, links=False)
    one = Scenario(model=llama8b, hardware=hw, weights=BF16, kv=BF16, lm_head=BF16, context=4096.0, concurrency=1,
                   devices=4, tp=1, pp=4, prompt_tokens=4096.0)
    llama = predict(Scenario(**{**one.__dict__, "engine": "llama-cpp"}), Params(eff)).prefill_step
    plain = predict(one, Params(eff)).prefill_step
    assert llama is not None and plain is not None
    gemm = 2 * 4096 * llama8b.body_params_active / (0.5 * 100e12)  # compute-bound: 8 micro-batches = one forward
    assert plain.term("prefill_gemm").seconds == pytest.approx(gemm, rel=1e-6)  # type: ignore[union-attr]
    assert llama.term("prefill_gemm").seconds == pytest.approx(gemm * 14 / 32, rel=1e-6)  # type: ignore[union-attr]
