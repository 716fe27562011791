"""Pitfall warnings: coalescing by the server (token counts) and by the client (identical arrival stamps)."""

from __future__ import annotations

from typing import Any

from benchledger.bench.checks import arm_warnings
from benchledger.metrics import summarize


def rec(times: list[float], tokens: list[int], source: str, output_tokens: int | None = None) -> dict[str, Any]:
    return {"ok": True, "t_start": 0.0, "t_sent": 0.0, "t_end": times[-1], "round": 0, "chunk_times": times,
            "chunk_tokens": tokens, "chunk_token_source": source, "input_tokens": 1,
            "output_tokens": sum(tokens) if output_tokens is None else output_tokens}


def warnings_for(records: list[dict[str, Any]]) -> list[str]:
    return arm_warnings(speculative=False, summary=summarize(records, 1.0), records=records, counters=None,
                        generated_delta=None, window_output_tokens=0, temperature=0.0, ignore_eos=False,
                        synthetic_prompts=False)


def test_server_coalescing_with_per_chunk_usage_points_to_per_token_itl() -> None:
    (warning,) = warnings_for([rec([0.1, 0.2, 0.3], [3, 3, 3], "continuous_usage")])
    assert warning.startswith("chunk coalescing") and "read itl_per_token" in warning


def test_server_coalescing_without_per_chunk_usage_does_not_recommend_the_approximate_metric() -> None:
    # no per-chunk usage: each chunk is counted as one token, the final usage says 3 per chunk
    (warning,) = warnings_for([rec([0.1, 0.2, 0.3], [1, 1, 1], "counted", output_tokens=9)])
    assert warning.startswith("chunk coalescing")
    assert "read itl_per_token" not in warning and "itl_per_token is approximate" in warning


def test_identical_client_stamps_warn_that_the_client_was_the_bottleneck() -> None:
    times = [0.1, 0.2, 0.2, 0.2, 0.3, 0.4]
    (warning,) = warnings_for([rec(times, [1] * len(times), "continuous_usage")])
    assert warning.startswith("client-side coalescing: 40.0%") and "the client was the bottleneck" in warning
    assert warnings_for([rec([0.1, 0.2, 0.3], [1, 1, 1], "continuous_usage")]) == []
