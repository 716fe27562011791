"""φ(T) = T^γ for the verify attention (exact kernel γ=0, prefill kernel γ=1, φ < 1 allowed), stated with
--verify-kernel; decode attention has its own efficiency, fitted only when contexts vary."""

from __future__ import annotations

import pytest

from benchledger.perfmodel.architecture import ModelSpec
from benchledger.perfmodel.calibrate import Observation, fit
from benchledger.perfmodel.formats import FormatSpec
from benchledger.perfmodel.hardware import HardwareSpec
from benchledger.perfmodel.inputs import with_verify_kernel
from benchledger.perfmodel.predict import Params, Scenario, predict
from benchledger.perfmodel.roofline import Efficiency, verify_factor
from benchledger.perfmodel.specdec import SpecConfig

BF16 = FormatSpec("bf16", 2.0)


def sc(model: ModelSpec, hw: HardwareSpec, context: float, k: int | None = None) -> Scenario:
    spec = SpecConfig("mtp", k, acceptance_length=k * 0.9 + 1) if k else None
    return Scenario(model=model, hardware=hw, weights=BF16, kv=BF16, lm_head=BF16, context=context, concurrency=1,
                    spec=spec, engine="vllm")


def test_verify_factor_is_a_power_of_the_verify_width() -> None:
    assert verify_factor(Efficiency(phi_exp=0.0), 5) == 1.0
    assert verify_factor(Efficiency(phi_exp=1.0), 5) == 5.0
    assert verify_factor(Efficiency(phi_exp=-0.5), 4) == pytest.approx(0.5)  # better than one decode read
    assert verify_factor(Efficiency(phi=3.0), 5) == 3.0  # a constant when no exponent is set


def test_verify_kernel_option_sets_phi_with_its_origin(llama8b: ModelSpec, h100: HardwareSpec) -> None:
    long = sc(llama8b, h100, 32000, k=4)
    exact = predict(long, with_verify_kernel(Params(), "exact"))
    prefill = predict(long, with_verify_kernel(Params(), "prefill"))
    assert prefill.speedup is not None and exact.speedup is not None and prefill.speedup < exact.speedup
    assert "verify_attention" in prefill.limiting
    assert with_verify_kernel(Params(), "prefill").origin("phi_exponent").startswith("input (--verify-kernel")
    assert with_verify_kernel(Params(), "2.5").eff.phi == 2.5
    with pytest.raises(ValueError, match="exact, prefill or a factor"):
        with_verify_kernel(Params(), "fast")


def test_attention_efficiency_is_fitted_apart_from_weight_streaming(llama8b: ModelSpec, h100: HardwareSpec) -> None:
    true = Efficiency(eta_m=0.8, eta_attn=0.25, t0=0.003)
    obs = []
    for ctx in (500.0, 8000.0, 32000.0, 64000.0):
        s = sc(llama8b, h100, ctx)
        obs.append(Observation(f"r#c{ctx:g}", s, "per_stream_throughput",
                               predict(s, Params(true)).tok_s_per_stream, ("src",)))
    result = fit(obs)
    assert "eta_attn" in result.fitted
    assert result.eff.eta_attn == pytest.approx(0.25, rel=0.15)
    assert result.eff.eta_m == pytest.approx(0.8, rel=0.15)
    flat = fit([o for o in obs if o.scenario.context == 500.0] * 2)  # one context: not identifiable
    assert "eta_attn" not in flat.fitted and flat.eff.eta_attn is None
