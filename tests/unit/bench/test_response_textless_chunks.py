"""Chunks whose text is empty (vLLM holds back partial UTF-8 of byte-level BPE tokens) keep their tokens."""

from __future__ import annotations

import json

from benchledger.bench.client import RawStream
from benchledger.bench.response import parse_stream


def chunk(text: str, cum: int) -> str:
    return json.dumps({"id": "cmpl-1", "choices": [{"index": 0, "text": text}],
                       "usage": {"prompt_tokens": 4, "completion_tokens": cum}})


def test_tokens_of_textless_chunks_count_in_the_next_chunk_with_text() -> None:
    events = [(100.1, chunk("a", 1)), (100.2, chunk("", 2)), (100.3, chunk("", 3)), (100.4, chunk("\u00e9b", 4)),
              (100.5, json.dumps({"id": "cmpl-1", "choices": [], "usage": {"prompt_tokens": 4, "completion_tokens": 4}})),
              (100.5, "[DONE]")]
    rec = parse_stream(RawStream(t_start=100.0, t_sent=100.001, t_end=100.6, status=200, events=events), origin=100.0)
    assert rec.ok and rec.chunk_token_source == "continuous_usage"
    assert rec.chunk_tokens == [1, 3]  # the two held-back tokens arrive, as text, with the third
    assert sum(rec.chunk_tokens) == rec.output_tokens == 4
    assert rec.chunk_times == [100.1 - 100.0, 100.4 - 100.0]
