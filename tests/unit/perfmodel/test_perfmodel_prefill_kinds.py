"""The prefill hold-out calibrates each arm from its own kind (``accuracy.hold_out_prefill``): a forward arm
(llama-bench ``pp``: the forward alone) from forward arms, a served TTFT from TTFT arms, each fit with one
per-request cost ``t0_prefill`` per engine (``calibrate_prefill.fit_prefill_pooled``); a TTFT at an unknown
concurrency is scored but trains nothing. Hand-computed cases: arms made from known η_p and per-engine t0."""

from __future__ import annotations

from dataclasses import replace

import pytest

from benchledger.perfmodel.accuracy import PREFILL_LEVELS, hold_out_prefill
from benchledger.perfmodel.architecture import ModelSpec
from benchledger.perfmodel.calibrate_prefill import PrefillObservation, fit_prefill_pooled, predicted_prefill
from benchledger.perfmodel.formats import FormatSpec
from benchledger.perfmodel.hardware import HardwareSpec
from benchledger.perfmodel.predict import Scenario
from benchledger.perfmodel.roofline import Efficiency

BF16 = FormatSpec("bf16", 2.0)
HW = HardwareSpec("gpu", 3000e9, {"bf16": 1000e12})


def _arm(ref: str, model: ModelSpec, metric: str, engine: str, prompt: float, true: Efficiency,
         known: bool = True, slowdown: float = 1.0) -> PrefillObservation:
    """An arm measured at exactly what ``true`` predicts (× ``slowdown`` in time)."""
    sc = Scenario(model=model, hardware=HW, weights=BF16, kv=BF16, lm_head=BF16, context=prompt, concurrency=1,
                  engine=engine, prompt_tokens=prompt)
    probe = PrefillObservation(ref, sc, metric, 1.0, prompt, concurrency_known=known)
    value = predicted_prefill(probe, true)
    return replace(probe, value=value * slowdown if metric == "ttft" else value / slowdown)


def _campaign(o: PrefillObservation) -> str:
    return o.ref.partition("#")[0]


def test_each_engine_keeps_its_own_per_request_cost(llama8b: ModelSpec) -> None:
    """Engine a pays 100 ms per request, engine b 5 ms, both at η_p = 0.4. Held out, b1 is predicted from a1, a2 and
    b2 with b's own 5 ms (one shared t0 would charge it part of a's 100 ms: at 512 prompt tokens the forward is
    ~21 ms, so a shared ~50 ms would be off by ~1.7×)."""
    a = Efficiency(eta_prefill=0.4, t0_prefill=0.100)
    b = Efficiency(eta_prefill=0.4, t0_prefill=0.005)
    obs = [_arm(f"{c}#p{p:g}", llama8b, "ttft", c[0], p, a if c[0] == "a" else b)
           for c in ("a1", "a2", "b1", "b2") for p in (512.0, 4096.0)]
    scored = {s.obs.ref: s for s in hold_out_prefill(obs, _campaign)}
    for ref in ("b1#p512", "b1#p4096", "a1#p512"):
        assert scored[ref].predicted == pytest.approx(scored[ref].obs.value, rel=0.02), ref
    assert scored["b1#p512"].level == PREFILL_LEVELS[3]  # every engine, TTFT arms: a1, a2, b2
    assert scored["b1#p512"].t0_from == "b (2 TTFT arms)"
    fitted = fit_prefill_pooled([o for o in obs if not o.ref.startswith("b1")])
    assert fitted.eff.eta_prefill == pytest.approx(0.4, rel=0.02)
    assert fitted.t0_by_engine["a"] == pytest.approx(0.100, rel=0.02)
    assert fitted.t0_by_engine["b"] == pytest.approx(0.005, rel=0.05)


def test_a_forward_arm_is_calibrated_from_forward_arms_of_its_engine(llama8b: ModelSpec) -> None:
    """llama-bench (forward only) reaches η_p = 0.2 and llama-server TTFTs η_p = 0.6 + 50 ms, both on engine
    llama-cpp. Held out, a forward campaign is predicted from the other forward campaigns (η_p 0.2, no t0), and a
    TTFT campaign from the other TTFT campaigns, not from a compromise of the two kinds."""
    fwd = Efficiency(eta_prefill=0.2, t0_prefill=0.0)
    srv = Efficiency(eta_prefill=0.6, t0_prefill=0.050)
    obs = [_arm(f"f{c}#p{p:g}", llama8b, "prefill_throughput", "llama-cpp", p, fwd)
           for c in range(3) for p in (512.0, 4096.0)]
    obs += [_arm(f"r{c}#p{p:g}", llama8b, "ttft", "llama-cpp", p, srv) for c in range(3) for p in (512.0, 4096.0)]
    for s in hold_out_prefill(obs, _campaign):
        assert s.predicted == pytest.approx(s.obs.value, rel=0.02), s.obs.ref
        assert s.level == PREFILL_LEVELS[0]  # hardware × engine, own kind
        assert (s.t0_from == "none (forward only)") == (s.obs.metric == "prefill_throughput")


def test_a_forward_campaign_alone_of_its_kind_takes_eta_from_ttft_arms_without_their_cost(
        llama8b: ModelSpec) -> None:
    """No other forward campaign: the fallback level pools the TTFT arms (η_p 0.3, 80 ms per request); the forward
    arm takes η_p only, never the requests' 80 ms."""
    srv = Efficiency(eta_prefill=0.3, t0_prefill=0.080)
    obs = [_arm(f"r{c}#p{p:g}", llama8b, "ttft", "srv", p, srv) for c in range(3) for p in (512.0, 4096.0)]
    obs.append(_arm("f#p512", llama8b, "prefill_throughput", "bench", 512.0, srv))
    scored = {s.obs.ref: s for s in hold_out_prefill(obs, _campaign)}
    assert scored["f#p512"].level == PREFILL_LEVELS[4]
    assert scored["f#p512"].predicted == pytest.approx(scored["f#p512"].obs.value, rel=0.02)


def test_a_ttft_at_an_unknown_concurrency_is_scored_but_trains_nothing(llama8b: ModelSpec) -> None:
    """Campaign q's TTFTs (concurrency unknown, assumed 1) are 5× slower than the forward: they hold a queue. The
    other campaigns are predicted exactly, as if q were absent; q itself is still scored."""
    srv = Efficiency(eta_prefill=0.4, t0_prefill=0.020)
    obs = [_arm(f"r{c}#p{p:g}", llama8b, "ttft", "srv", p, srv) for c in range(3) for p in (512.0, 4096.0)]
    obs += [_arm(f"q#p{p:g}", llama8b, "ttft", "srv", p, srv, known=False, slowdown=5.0) for p in (512.0, 4096.0)]
    scored = {s.obs.ref: s for s in hold_out_prefill(obs, _campaign)}
    for ref, s in scored.items():
        if ref.startswith("q"):
            assert s.predicted == pytest.approx(s.obs.value / 5.0, rel=0.02)
            assert s.training_arms == 6
        else:
            assert s.predicted == pytest.approx(s.obs.value, rel=0.02), ref
            assert s.training_arms == 4
