"""Roofline terms: op time, sharding, verify factor φ, state traffic, and the dense ceiling."""

from __future__ import annotations

from dataclasses import replace

import pytest
from perfmodel_inputs import BF16, FP8, INT4

from benchledger.perfmodel.architecture import ModelSpec
from benchledger.perfmodel.hardware import HardwareSpec
from benchledger.perfmodel.predict import Params, Scenario, predict
from benchledger.perfmodel.roofline import IDEAL, Efficiency, StepConfig, op_time, step_time


def test_op_time_takes_the_slower_side() -> None:
    eff = Efficiency(eta_m=0.5, eta_c=0.25)
    assert op_time(1e9, 1e9, 1e12, 1e14, eff) == (pytest.approx(2e-3), "memory")
    assert op_time(1e6, 1e13, 1e12, 1e14, eff) == (pytest.approx(0.4), "compute")
    assert op_time(1e6, 1e13, 1e12, None, eff) == (pytest.approx(2e-6), "memory")


@pytest.mark.parametrize("devices", [1, 2, 4])
def test_dense_bf16_ceiling_is_bandwidth_times_devices_over_bytes_per_step(
    llama8b: ModelSpec, h100: HardwareSpec, devices: int
) -> None:
    context = 4096
    sc = Scenario(llama8b, h100.with_count(devices), BF16, BF16, BF16, context=context, concurrency=1,
                  devices=devices)
    bytes_per_step = (llama8b.body_params_active + llama8b.lm_head_params) * 2 + context * 128 * 1024
    expected = h100.bandwidth * devices / bytes_per_step
    assert predict(sc).ceiling_tok_s_per_stream == pytest.approx(expected, rel=1e-9)


def test_step_terms_add_up_and_tp_halves_weight_bytes(llama8b: ModelSpec, h100: HardwareSpec) -> None:
    cfg = StepConfig(llama8b, h100, BF16, BF16, BF16, batch=1, context=1000)
    one = step_time(cfg, IDEAL)
    two = step_time(replace(cfg, tp=2, hardware=h100.with_count(2)), IDEAL)
    w1, w2 = one.term("weights"), two.term("weights")
    assert w1 is not None and w2 is not None
    assert w2.bytes == pytest.approx(w1.bytes / 2)
    assert one.seconds == pytest.approx(sum(t.seconds for t in one.terms))
    eff = Efficiency(allreduce_latency=10e-6)
    ar = step_time(replace(cfg, tp=2, hardware=h100.with_count(2)), eff).term("tp_allreduce")
    assert ar is not None
    payload = 4096 * 2.0
    assert ar.seconds == pytest.approx(64 * (10e-6 + payload / 450e9))


def test_phi_multiplies_only_the_verify_attention(qwen27b: ModelSpec, b60x2: HardwareSpec) -> None:
    cfg = StepConfig(qwen27b, b60x2, INT4, BF16, BF16, batch=1, context=50_000, tp=2, query_tokens=5)
    base = step_time(cfg, Efficiency(phi=1.0))
    slow = step_time(cfg, Efficiency(phi=15.0))
    a1, a15 = base.term("verify_attention"), slow.term("verify_attention")
    assert a1 is not None and a15 is not None
    assert a15.seconds == pytest.approx(15 * a1.seconds)
    assert base.term("weights") == slow.term("weights")
    plain = step_time(replace(cfg, query_tokens=1), Efficiency(phi=15.0))
    assert plain.term("verify_attention") is None
    attention = plain.term("attention")
    assert attention is not None and attention.seconds == pytest.approx(a1.seconds)
    # KV bytes per GPU at 50K: 64 KiB × 50K / 2 (≈1.64 GB)
    assert attention.bytes == pytest.approx(64 * 1024 * 50_000 / 2)


def test_recurrent_state_traffic_scales_with_one_plus_writes(qwen27b: ModelSpec, gb10: HardwareSpec) -> None:
    cfg = StepConfig(qwen27b, gb10, BF16, FP8, BF16, batch=32, context=1000)
    plain = step_time(cfg, IDEAL).term("recurrent_state")
    spec = step_time(replace(cfg, query_tokens=4, state_writes=4), IDEAL).term("recurrent_state")
    assert plain is not None and spec is not None
    assert plain.bytes == pytest.approx(32 * 144 * 2**20 * 2)  # ≈ 9.7 GB per step
    assert spec.bytes == pytest.approx(32 * 144 * 2**20 * 5)  # ≈ 24 GB at T=4


def test_prediction_lists_its_assumptions_with_origins(llama8b: ModelSpec, h100: HardwareSpec) -> None:
    sc = Scenario(llama8b, h100, BF16, BF16, BF16, context=1000, concurrency=8)
    params = Params(Efficiency(eta_m=0.6), {"eta_m": "calibration-x"})
    out = predict(sc, params).to_json()
    origins = {a["name"]: a["origin"] for a in out["assumptions"]}
    assert origins["eta_m"] == "calibration-x"
    assert origins["t0_ms"] == "default"
    assert out["aggregate_tok_s"] == pytest.approx(8 * out["tok_s_per_stream"])
    assert out["tpot_ms"] == pytest.approx(1000 / out["tok_s_per_stream"])
    assert out["speedup"] is None
