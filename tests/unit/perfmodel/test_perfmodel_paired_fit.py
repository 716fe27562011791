"""A speculative arm whose baseline arm is in the same fit is scored by its speedup over that baseline
(``calibrate.log_errors``), on hand-computed cases: a setup slower than the model by one common factor leaves the
speculative arm's error at zero, and a fit over such a pair recovers the draft cost from the ratio."""

from __future__ import annotations

import math

import pytest

from benchledger.perfmodel.architecture import ModelSpec
from benchledger.perfmodel.calibrate import Observation, fit, log_errors
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
