"""Speculative decoding: accepted length, draft cost, speedup, and the shapes of the seed evidence."""

from __future__ import annotations

import pytest
from perfmodel_inputs import BF16, FP8, INT4, NVFP4

from benchledger.perfmodel.architecture import ModelSpec
from benchledger.perfmodel.hardware import HardwareSpec
from benchledger.perfmodel.predict import Params, Scenario, predict
from benchledger.perfmodel.roofline import IDEAL, Efficiency, StepConfig
from benchledger.perfmodel.specdec import SpecConfig, acceptance_length, draft_terms


def test_acceptance_length_from_per_position_rates_matches_vllm_log() -> None:
    rates = (0.762, 0.616, 0.513, 0.424, 0.364, 0.309, 0.272, 0.237)  # vllm PR 48892, logged AL 4.50
    assert round(acceptance_length(8, rates), 2) == 4.50
    assert acceptance_length(3, rates) == pytest.approx(1 + 0.762 + 0.616 + 0.513)
    with pytest.raises(ValueError):
        acceptance_length(4, (0.5, 0.4))
    with pytest.raises(ValueError):
        acceptance_length(3, given=4.5)


def test_mtp_draft_reads_its_layer_and_the_full_lm_head_per_step(qwen27b: ModelSpec, b60x2: HardwareSpec) -> None:
    cfg = StepConfig(qwen27b, b60x2, INT4, BF16, BF16, batch=1, context=1000, tp=2)
    terms = {t.name: t for t in draft_terms(cfg, SpecConfig("mtp", 4, acceptance_length=4.8), IDEAL)}
    assert terms["draft_lm_head"].bytes == pytest.approx(4 * 248320 * 5120 * 2 / 2)
    assert terms["draft_layer"].bytes == pytest.approx(4 * 0.42e9 * 2 / 2)
    assert draft_terms(cfg, SpecConfig("ngram", 4, acceptance_length=2.0), IDEAL) == []


def test_speedup_is_al_times_base_over_spec_step(qwen27b: ModelSpec, gb10: HardwareSpec) -> None:
    spec = SpecConfig("mtp", 3, rates=(0.78, 0.56, 0.44))
    sc = Scenario(qwen27b, gb10, NVFP4, FP8, BF16, context=1000, concurrency=4, engine="vllm", spec=spec)
    p = predict(sc, Params(Efficiency(eta_m=0.7, eta_c=0.1, t0=0.003)))
    assert p.baseline_step is not None and p.speedup is not None
    assert p.acceptance_length == pytest.approx(2.78)
    assert p.speedup == pytest.approx(2.78 * p.baseline_step.seconds / p.step.seconds)
    assert p.tpot_ms == pytest.approx(1e3 * p.step.seconds / 2.78)


def test_mtp_speedup_on_gb10_falls_with_concurrency(qwen27b: ModelSpec, gb10: HardwareSpec) -> None:
    """autobench Qwen3.8-27B NVFP4 sweep: +91 % at c1 falling to ≈ +1 % at c128."""
    eff = Params(Efficiency(eta_m=0.7, eta_c=0.05, t0=0.003))
    speedups = []
    for conc in (1, 2, 4, 8, 16, 32, 64, 128):
        spec = SpecConfig("mtp", 3, acceptance_length=2.7, state_snapshots=True)
        sc = Scenario(qwen27b, gb10, NVFP4, FP8, BF16, context=1000, concurrency=conc, engine="vllm", spec=spec)
        p = predict(sc, eff)
        assert p.speedup is not None
        speedups.append(p.speedup)
    assert speedups == sorted(speedups, reverse=True)
    assert speedups[0] > 1.5
    assert speedups[-1] < speedups[0] - 0.5
    # at high concurrency the verify GEMMs over B·T rows are compute-bound: the weights term is named
    high = predict(Scenario(qwen27b, gb10, NVFP4, FP8, BF16, context=1000, concurrency=128, engine="vllm",
                            spec=SpecConfig("mtp", 3, acceptance_length=2.7)), eff)
    weights = high.step.term("weights")
    assert weights is not None and weights.bound == "compute"
    assert "weights" in high.limiting


def test_b60_collapse_at_50k_comes_from_the_verify_kernel_factor(qwen27b: ModelSpec, b60x2: HardwareSpec) -> None:
    """llm-scaler#657: ≈2.3× at 1K, ≈1.1× at 50K with AL ≈ 4.8/5 when q_len>1 uses the prefill kernel."""

    def run(context: int, phi: float) -> tuple[float, list[str]]:
        spec = SpecConfig("mtp", 4, acceptance_length=4.8)
        sc = Scenario(qwen27b, b60x2, INT4, BF16, BF16, context=context, concurrency=1, devices=2, spec=spec)
        p = predict(sc, Params(Efficiency(eta_m=0.8, eta_c=0.5, t0=0.0, phi=phi)))
        assert p.speedup is not None
        return p.speedup, p.limiting

    ideal_1k, _ = run(1_000, 1.0)
    ideal_50k, _ = run(50_000, 1.0)
    assert ideal_50k > ideal_1k > 2.0  # ideal kernel: speedup rises with L (2.5 → 2.75 by hand)
    slow_1k, _ = run(1_000, 15.0)
    slow_50k, limiting = run(50_000, 15.0)
    assert slow_1k > 2.0
    assert slow_50k < 1.4
    assert limiting[0] == "verify_attention"
