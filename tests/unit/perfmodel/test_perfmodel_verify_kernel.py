"""φ(T) = T^γ for the verify attention (exact kernel γ=0, prefill kernel γ=1, φ < 1 allowed), stated with
--verify-kernel; decode attention has its own efficiency, fitted only when contexts vary."""

from __future__ import annotations

import pytest

from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.perfmodel.architecture import ModelSpec
from benchledger.perfmodel.calibrate import Observation, fit
from benchledger.perfmodel.formats import FormatSpec
from benchledger.perfmodel.hardware import HardwareSpec
from benchledger.perfmodel.inputs import with_verify_kernel
from benchledger.perfmodel.kernels import VERIFY_EXPONENT, VERIFY_KERNEL, verify_kernel
from benchledger.perfmodel.predict import Params, Scenario, predict, verify_params
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


def _b60(context: float, engine: str, k: int = 4) -> Scenario:
    model = ModelSpec(id="m", hidden=4096, layers_full=32, num_heads=32, num_kv_heads=8, head_dim=128,
                      vocab=32000, params_total=8.0e9)
    hw = HardwareSpec("intel-arc-pro-b60", 456e9, {}, family="intel discrete")
    return Scenario(model=model, hardware=hw, weights=BF16, kv=BF16, lm_head=BF16, context=context, concurrency=1,
                    spec=SpecConfig("mtp", k, acceptance_length=0.8 * k + 1), engine=engine)


def test_an_engine_stated_prefill_verify_costs_one_kv_read_per_query() -> None:
    """llm-scaler's sources state its q_len > 1 attention runs the chunk-prefill path: φ(T) = T, whatever the
    calibration's φ, with the source as its origin; the user's --verify-kernel still wins."""
    stated = predict(_b60(50000, "llm-scaler-vllm"), Params(Efficiency(phi_exp=0.0)))
    plain = predict(_b60(50000, "vllm"), Params(Efficiency(phi_exp=0.0)))
    verify = stated.step.term("verify_attention")
    assert verify is not None and plain.step.term("verify_attention") is not None
    assert verify.seconds == pytest.approx(5 * plain.step.term("verify_attention").seconds)  # T = k + 1 = 5
    assert stated.speedup is not None and plain.speedup is not None and stated.speedup < plain.speedup
    origin = next(a.origin for a in stated.assumptions if a.name == "phi_exponent")
    assert origin.startswith("record:llm-scaler-657") and "`chunk-prefill` path" in origin
    user = predict(_b60(50000, "llm-scaler-vllm"), with_verify_kernel(Params(), "exact"))
    assert user.speedup == pytest.approx(predict(_b60(50000, "vllm"), with_verify_kernel(Params(), "exact")).speedup)
    assert verify_kernel("llm-scaler-vllm", "nvidia discrete") is None  # stated for Intel parts only


def test_every_stated_verify_kernel_quotes_its_stored_source() -> None:
    sources = bundled_ledger_dir() / "sources"
    for fact in VERIFY_KERNEL.values():
        assert fact.kind in VERIFY_EXPONENT
        assert fact.quote in (sources / f"{fact.source}.md").read_text(encoding="utf-8")


def test_a_stated_verify_kernel_is_fixed_in_pooled_fits_and_measured_by_its_own_setup() -> None:
    """A pooled fit (other setups' arms) leaves φ to the stated kernel; one setup's own fit (``calibrate``)
    measures it, starting from the stated φ(T) = T, and that calibrated φ then wins over the stated one."""
    truth = Params(Efficiency(eta_m=0.6, t0=0.004, phi_exp=1.5), {"phi_exponent": "calibration-b60-x"})
    obs = [Observation(f"r#k{k}", s, "per_stream_throughput", predict(s, truth).tok_s_per_stream, ("src",))
           for k in (1, 2, 4) for s in (_b60(50000, "llm-scaler-vllm", k),)]
    assert "phi_exponent" not in fit(obs, per_layer=True).fitted
    own = fit(obs)
    assert "phi_exponent" in own.fitted and own.eff.phi_exp == pytest.approx(1.5, abs=0.1)
    calibrated = Params(Efficiency(phi_exp=1.5), {"phi_exponent": "calibration-intel-arc-pro-b60-llm-scaler-vllm"})
    assert verify_params(_b60(50000, "llm-scaler-vllm"), calibrated) is calibrated
    not_fitted = Params(Efficiency(), {"phi_exponent": "default (not identifiable from the arms of calibration-x)"})
    assert verify_params(_b60(50000, "llm-scaler-vllm"), not_fitted).eff.phi_exp == 1.0
