"""Two fit-structure rules on hand-computed cases. A speculative arm whose baseline arm is in the same fit is scored
by its speedup over that baseline (``calibrate.log_errors``): a setup slower than the model by one common factor
leaves the speculative arm's error at zero, and speedups of setups whose base speeds disagree are still matched.
A prefill level pools arms of one GEMM kind only (``accuracy.prefill_gemm_kind``: dense or MoE)."""

from __future__ import annotations

import math

import pytest

from benchledger.perfmodel.accuracy import hold_out_prefill, prefill_gemm_kind
from benchledger.perfmodel.architecture import ModelSpec
from benchledger.perfmodel.calibrate import Observation, fit, log_errors
from benchledger.perfmodel.calibrate_prefill import PrefillObservation, predicted_prefill
from benchledger.perfmodel.formats import FormatSpec
from benchledger.perfmodel.hardware import HardwareSpec
from benchledger.perfmodel.predict import Params, Scenario, predict
from benchledger.perfmodel.roofline import Efficiency
from benchledger.perfmodel.specdec import SpecConfig

BF16 = FormatSpec("bf16", 2.0)
FP4 = FormatSpec("nvfp4", 0.5625)


def _scenario(model: ModelSpec, hw: HardwareSpec, spec: SpecConfig | None) -> Scenario:
    return Scenario(model=model, hardware=hw, weights=FP4, kv=BF16, lm_head=BF16, context=1000.0, concurrency=1,
                    engine="vllm", spec=spec)


def _pair(model: ModelSpec, hw: HardwareSpec, eff: Efficiency, setup: float, k: int = 3,
          base_metric: str = "per_stream_throughput", record: str = "r") -> list[Observation]:
    """Base and MTP arms of one record measured at ``setup`` × the speed ``eff`` predicts (one factor for both)."""
    base_sc = _scenario(model, hw, None)
    spec_sc = _scenario(model, hw, SpecConfig("mtp", k, acceptance_length=1.0 + 0.8 * k))
    base_p, spec_p = predict(base_sc, Params(eff)), predict(spec_sc, Params(eff))
    base_value = base_p.tpot_ms / setup if base_metric == "tpot" else base_p.tok_s_per_stream * setup
    return [Observation(f"{record}#base", base_sc, base_metric, base_value, ("s",)),
            Observation(f"{record}#mtp{k}", spec_sc, "per_stream_throughput", spec_p.tok_s_per_stream * setup,
                        ("s",), baseline=f"{record}#base")]


def test_a_common_setup_factor_is_the_baselines_error_not_the_speculative_arms(
        qwen27b: ModelSpec, gb10: HardwareSpec) -> None:
    eff = Efficiency(t0_draft=0.004)
    base, spec = log_errors(_pair(qwen27b, gb10, eff, setup=0.5), eff)
    assert base == pytest.approx(math.log(2.0))  # predicted / measured = 1 / 0.5
    assert spec == pytest.approx(0.0, abs=1e-12)  # S_predicted = S_measured: the setup factor cancels
    # a TPOT baseline (an inverse speed) is turned around before the ratio is taken
    base_t, spec_t = log_errors(_pair(qwen27b, gb10, eff, setup=0.5, base_metric="tpot"), eff)
    assert base_t == pytest.approx(math.log(0.5))  # TPOT predicted / measured
    assert spec_t == pytest.approx(0.0, abs=1e-12)
    # without its baseline among the observations an arm keeps its own error
    alone = log_errors(_pair(qwen27b, gb10, eff, setup=0.5)[1:], eff)
    assert alone == [pytest.approx(math.log(2.0))]


def test_speedups_of_two_setups_are_fitted_although_their_base_speeds_disagree(
        qwen27b: ModelSpec, gb10: HardwareSpec) -> None:
    """Two records whose setups run at 0.6× and 1.4× the model's base speed share one draft cost: the fit's one set
    of base knobs cannot match both base speeds, but each speedup is matched, because it is what the spec arm is
    scored by."""
    true = Efficiency(eta_m=0.75, t0=0.0, t0_layer=40e-6, t0_draft=0.006)
    obs = [o for setup, name in ((0.6, "slow"), (1.4, "fast")) for k in (1, 2, 3)
           for o in _pair(qwen27b, gb10, true, setup=setup, k=k, record=f"{name}{k}")]
    result = fit(obs, per_layer=True, prior_weight=1e-4)
    params = Params(result.eff)
    for base, spec in zip(obs[::2], obs[1::2], strict=True):
        s_pred = predict(spec.scenario, params).tok_s_per_stream / predict(base.scenario, params).tok_s_per_stream
        assert s_pred == pytest.approx(spec.value / base.value, rel=0.03)


def test_a_dense_prefill_is_predicted_from_dense_campaigns_only(llama8b: ModelSpec, deepseek_v3: ModelSpec) -> None:
    """Three dense campaigns reach η_p = 0.4; three MoE campaigns run 4× slower than η_p = 0.4 predicts. Held out, a
    dense campaign is predicted from the other two dense ones exactly (its kind's level), and an MoE campaign from
    the other MoE ones, instead of from a compromise between the two kinds."""
    hw = HardwareSpec("gpu", 3000e9, {"bf16": 1000e12})
    true = Efficiency(eta_prefill=0.4)

    def obs(ref: str, model: ModelSpec, slowdown: float) -> PrefillObservation:
        probe = _prefill(ref, hw, model, 1.0)
        return _prefill(ref, hw, model, predicted_prefill(probe, true) / slowdown)

    arms = [obs(f"dense{c}#p{i}", llama8b, 1.0) for c in range(3) for i in range(2)]
    arms += [obs(f"moe{c}#p{i}", deepseek_v3, 4.0) for c in range(3) for i in range(2)]
    scored = hold_out_prefill(arms, lambda o: o.ref.partition("#")[0])
    for s in scored:
        assert prefill_gemm_kind(s.obs) == ("moe" if s.campaign.startswith("moe") else "dense")
        assert s.predicted == pytest.approx(s.obs.value, rel=0.02), s.obs.ref


def _prefill(ref: str, hw: HardwareSpec, model: ModelSpec, tok_s: float) -> PrefillObservation:
    sc = Scenario(model=model, hardware=hw, weights=BF16, kv=BF16, lm_head=BF16, context=4096.0, concurrency=1,
                  engine="e", prompt_tokens=4096.0)
    return PrefillObservation(ref, sc, "prefill_throughput", tok_s, 4096.0)
