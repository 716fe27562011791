"""Metrics are pure functions of raw timestamps: exact values on hand-made records."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

from benchledger.metrics import (
    DEFINITIONS,
    acceptance_from_responses,
    active_window,
    describe,
    e2e_latency,
    itl_per_chunk,
    itl_per_token,
    percentile,
    summarize,
    tpot,
    tpot_after_first_chunk,
    ttft,
)


def rec(t_sent: float, chunks: list[tuple[float, int]], t_end: float, *, ok: bool = True, rnd: int = 0,
        input_tokens: int = 10, **extra: Any) -> dict[str, Any]:
    return {
        "t_start": t_sent, "t_sent": t_sent, "t_end": t_end, "ok": ok, "round": rnd,
        "chunk_times": [c[0] for c in chunks], "chunk_tokens": [c[1] for c in chunks],
        "output_tokens": sum(c[1] for c in chunks), "input_tokens": input_tokens, **extra,
    }


# sent at 1.0; first chunk (2 tokens) at 1.1, then 1 token at 1.15, 3 tokens at 1.3 (the last token); the body
# (usage chunk, [DONE], zero chunk) ends later, at 1.4
R = rec(1.0, [(1.1, 2), (1.15, 1), (1.3, 3)], 1.4)


def test_per_request_definitions() -> None:
    assert ttft(R) == pytest.approx(0.1)
    # E2E and both TPOTs end at the last content token, not at the end of the body
    assert e2e_latency(R) == pytest.approx(0.3)
    # vLLM's TPOT: (E2E − TTFT) / (6 − 1)
    assert tpot(R) == pytest.approx(0.2 / 5)
    # benchledger's decode interval: (last − first chunk) / (6 − 2 tokens in the first chunk)
    assert tpot_after_first_chunk(R) == pytest.approx(0.2 / 4)
    assert itl_per_chunk(R) == pytest.approx([0.05, 0.15])
    assert itl_per_token(R) == pytest.approx([0.05, 0.05, 0.05, 0.05])


def test_vllm_named_keys_carry_vllm_definitions_and_ours_has_its_own_key() -> None:
    s = summarize([R], duration=1.0)
    assert s["median_tpot_ms"] == pytest.approx(40.0) and s["median_e2el_ms"] == pytest.approx(300.0)
    assert s["median_tpot_after_first_chunk_ms"] == pytest.approx(50.0)
    assert "tpot_after_first_chunk" in DEFINITIONS and "− 1" in DEFINITIONS["tpot"]


def test_tpot_excludes_single_token_requests() -> None:
    one = rec(0.0, [(0.1, 1)], 0.1)
    two_in_one_chunk = rec(0.0, [(0.1, 2)], 0.1)
    assert tpot(one) is None and tpot_after_first_chunk(one) is None
    # vLLM's TPOT exists for 2 tokens in one chunk (a zero decode time); the decode interval does not
    assert tpot(two_in_one_chunk) == 0.0 and tpot_after_first_chunk(two_in_one_chunk) is None
    s = summarize([one, two_in_one_chunk, R], duration=1.0)
    assert s["tpot_excluded_requests"] == 1 and s["tpot_after_first_chunk_excluded_requests"] == 2
    assert s["median_tpot_after_first_chunk_ms"] == pytest.approx(50.0)


def test_identical_client_stamps_are_counted_as_client_coalescing() -> None:
    burst = rec(0.0, [(0.1, 1), (0.2, 1), (0.2, 1), (0.2, 1), (0.3, 1)], 0.3)
    assert summarize([burst, R], 1.0)["client_coalesced_chunk_share"] == pytest.approx(2 / 6)
    assert summarize([R], 1.0)["client_coalesced_chunk_share"] == 0.0


def test_per_token_itl_is_labelled_approximate_without_per_chunk_usage() -> None:
    exact = {**R, "chunk_token_source": "continuous_usage"}
    counted = {**rec(0.0, [(0.1, 1), (0.2, 1)], 0.2), "chunk_token_source": "counted"}
    assert summarize([exact], 1.0)["itl_per_token_basis"] == "continuous_usage"
    assert summarize([exact, counted], 1.0)["itl_per_token_basis"].startswith("approximate")


def test_percentile_matches_linear_interpolation() -> None:
    values = [random.Random(5).random() for _ in range(101)]
    data = sorted(values)
    assert percentile(values, 50) == data[50]
    assert percentile([1.0, 2.0, 3.0, 4.0], 90) == pytest.approx(3.7)
    assert math.isnan(percentile([], 50))
    d = describe([2.0, 4.0])
    assert d["mean"] == 3.0 and d["std"] == 1.0 and d["median"] == 3.0


def test_summary_keys_and_throughput() -> None:
    failed = rec(0.0, [], 0.5, ok=False)
    s = summarize([R, failed], duration=2.0, slos_ms={"ttft_ms": 150.0})
    assert s["completed"] == 1 and s["failed"] == 1
    assert s["total_output_tokens"] == 6 and s["output_throughput"] == 3.0
    assert s["total_input_tokens"] == 10 and s["total_token_throughput"] == 8.0
    assert s["request_throughput"] == 0.5 and s["request_goodput"] == 0.5
    assert s["tokens_per_chunk"] == 2.0
    for key in ("mean_ttft_ms", "median_ttft_ms", "p99_ttft_ms", "mean_tpot_ms", "median_tpot_ms", "p99_tpot_ms",
                "mean_itl_ms", "median_itl_ms", "p99_itl_ms", "mean_e2el_ms", "median_e2el_ms"):
        assert key in s
    assert summarize([R], 1.0, slos_ms={"ttft_ms": 50.0})["request_goodput"] == 0.0


def test_active_window_sums_rounds_and_skips_idle_time() -> None:
    records = [rec(0.0, [(0.5, 1)], 1.0, rnd=0), rec(0.2, [(0.6, 1)], 1.5, rnd=0),
               rec(10.0, [(10.5, 1)], 12.0, rnd=1)]
    assert active_window(records) == pytest.approx(1.5 + 2.0)


def test_acceptance_from_responses_pools() -> None:
    rs = [rec(0, [], 1, spec={"draft_tokens": 8, "accepted_tokens": 6}),
          rec(0, [], 1, spec={"draft_tokens": 4, "accepted_tokens": 0}), rec(0, [], 1, spec=None)]
    acc = acceptance_from_responses(rs)
    assert acc is not None
    assert acc["requests"] == 2 and acc["acceptance_rate"] == 0.5 and acc["acceptance_length"] is None
    assert acceptance_from_responses([R]) is None
