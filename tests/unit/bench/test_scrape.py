"""Prometheus scrapes → normalised counters for vLLM, llama.cpp (new and old names) and SGLang gauges."""

from __future__ import annotations

from benchledger.bench.scrape import snapshot
from benchledger.metrics import acceptance_from_counters

VLLM = """# TYPE vllm:spec_decode_num_drafts counter
vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 10.0
vllm:spec_decode_num_drafts_total{engine="1",model_name="m"} 30.0
# TYPE vllm:spec_decode_num_draft_tokens counter
vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} 30.0
vllm:spec_decode_num_draft_tokens_total{engine="1",model_name="m"} 90.0
# TYPE vllm:spec_decode_num_accepted_tokens counter
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} 20.0
vllm:spec_decode_num_accepted_tokens_total{engine="1",model_name="m"} 40.0
# TYPE vllm:spec_decode_num_accepted_tokens_per_pos counter
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"} 9.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="m",position="0"} 27.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="1"} 7.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="1",model_name="m",position="1"} 9.0
# TYPE vllm:generation_tokens counter
vllm:generation_tokens_total{model_name="m"} 100.0
"""

LLAMACPP = """# HELP llamacpp:tokens_predicted_total Number of generation tokens processed.
# TYPE llamacpp:tokens_predicted_total counter
llamacpp:tokens_predicted_total 12
# TYPE llamacpp:spec_decode_num_draft_tokens_total counter
llamacpp:spec_decode_num_draft_tokens_total 8
# TYPE llamacpp:spec_decode_num_accepted_tokens_total counter
llamacpp:spec_decode_num_accepted_tokens_total 6
# TYPE llamacpp:spec_decode_num_drafts_total counter
llamacpp:spec_decode_num_drafts_total 2
# TYPE llamacpp:spec_decode_num_accepted_tokens_per_pos_total counter
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="0"} 2
llamacpp:spec_decode_num_accepted_tokens_per_pos_total{position="1"} 2
"""


def test_vllm_sums_engines() -> None:
    snap = snapshot(VLLM)
    assert snap.family == "vllm"
    assert (snap.drafts, snap.draft_tokens, snap.accepted) == (40.0, 120.0, 60.0)
    assert snap.per_position == {"0": 36.0, "1": 16.0}
    assert snap.generated_tokens == 100.0


def vllm_text(drafts: float, tokens: float, accepted: float, pos: tuple[float, float]) -> str:
    """One engine's spec counters in vLLM's exposition format."""
    return (
        f'vllm:spec_decode_num_drafts_total{{engine="0"}} {drafts}\n'
        f'vllm:spec_decode_num_draft_tokens_total{{engine="0"}} {tokens}\n'
        f'vllm:spec_decode_num_accepted_tokens_total{{engine="0"}} {accepted}\n'
        f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{engine="0",position="0"}} {pos[0]}\n'
        f'vllm:spec_decode_num_accepted_tokens_per_pos_total{{engine="0",position="1"}} {pos[1]}\n'
    )


def test_windowed_acceptance_differences_counters() -> None:
    before = snapshot(vllm_text(10, 30, 20, (9, 7)))
    after = snapshot(vllm_text(20, 60, 44, (17, 13)))
    acc = acceptance_from_counters(before.model_dump(), after.model_dump())
    assert acc is not None
    assert acc["num_drafts"] == 10 and acc["draft_tokens"] == 30 and acc["accepted_tokens"] == 24
    assert acc["acceptance_rate"] == 24 / 30
    assert acc["acceptance_length"] == 1 + 24 / 10
    assert acc["per_position"] == [0.8, 0.6]


def test_llamacpp_new_names() -> None:
    snap = snapshot(LLAMACPP)
    assert snap.family == "llamacpp"
    assert (snap.drafts, snap.draft_tokens, snap.accepted) == (2.0, 8.0, 6.0)
    assert snap.generated_tokens == 12.0


def test_llamacpp_old_names_have_no_draft_count() -> None:
    text = "llamacpp:n_drafted_total 10\nllamacpp:n_drafted_accepted_total 4\nllamacpp:tokens_predicted_total 50\n"
    before, after = snapshot(text), snapshot(text.replace(" 10", " 30").replace(" 4\n", " 14\n"))
    assert after.family == "llamacpp-old"
    acc = acceptance_from_counters(before.model_dump(), after.model_dump())
    assert acc is not None
    assert acc["acceptance_rate"] == 10 / 20 and acc["acceptance_length"] is None


def test_sglang_gauges_are_not_counters() -> None:
    snap = snapshot("# TYPE sglang:spec_accept_length gauge\nsglang:spec_accept_length{model_name=\"m\"} 2.5\n")
    assert snap.family == "sglang"
    assert snap.draft_tokens is None
    assert snap.gauges == {"sglang:spec_accept_length": 2.5}
    assert acceptance_from_counters(snap.model_dump(), snap.model_dump()) is None


def test_no_spec_metrics() -> None:
    snap = snapshot("# TYPE foo counter\nfoo_total 1\n")
    assert snap.family is None and snap.draft_tokens is None
