"""Paired bootstrap over rounds: a real difference is found, no difference is a valid answer."""

from __future__ import annotations

import random
from typing import Any

import pytest

from benchledger.bench.compare import compare_arms


def arm_records(step: float, rounds: int, noise: float, seed: int, per_round: int = 4) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    t = 0.0
    for r in range(rounds):
        drift = 1.0 + 0.3 * r / rounds  # slow drift hits both arms alike
        for _ in range(per_round):
            s = step * drift * (1 + rng.uniform(-noise, noise))
            chunks = [t + 0.01 + i * s for i in range(20)]
            out.append({"round": r, "ok": True, "t_sent": t, "t_start": t, "t_end": chunks[-1],
                        "chunk_times": chunks, "chunk_tokens": [1] * 20, "output_tokens": 20})
            t = chunks[-1]
        t += 5.0
    return out


def test_detects_a_real_speedup() -> None:
    base = arm_records(0.010, 10, 0.05, 1)
    fast = arm_records(0.005, 10, 0.05, 2)
    c = compare_arms(base, fast)
    assert c["paired_rounds"] == 10
    tp = c["tpot_speedup"]
    assert tp["estimate"] == pytest.approx(2.0, rel=0.05)
    assert tp["ci95"][0] > 1.0 and tp["verdict"] == "faster"
    assert c["output_throughput_speedup"]["verdict"] == "faster"
    assert compare_arms(fast, base)["tpot_speedup"]["verdict"] == "slower"


def test_same_speed_is_no_significant_difference() -> None:
    c = compare_arms(arm_records(0.01, 12, 0.2, 1), arm_records(0.01, 12, 0.2, 2))
    assert c["tpot_speedup"]["verdict"] == "no significant difference"
    lo, hi = c["tpot_speedup"]["ci95"]
    assert lo < 1.0 < hi


def test_too_few_rounds_give_no_interval() -> None:
    c = compare_arms(arm_records(0.01, 2, 0.0, 1), arm_records(0.005, 2, 0.0, 1))
    assert c["tpot_speedup"]["ci95"] is None
    assert c["tpot_speedup"]["verdict"].startswith("no interval")
    assert c["tpot_speedup"]["estimate"] == pytest.approx(2.0)
