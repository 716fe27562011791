"""The fake server's hostile answers as pure functions: tokenizer answers, ``/metrics`` bodies, bad chunks.

The modes and faults are listed in ``tests/fakes/openai_server.py``'s module doc; that server calls these and
only writes the bytes.
"""

from __future__ import annotations

import json
from typing import Any


class Vocab:
    """One id per distinct word, so ``/detokenize`` inverts ``/tokenize`` exactly."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.words: list[str] = []

    def encode(self, text: str) -> list[int]:
        out = []
        for w in text.split():
            if w not in self.ids:
                self.ids[w] = len(self.words)
                self.words.append(w)
            out.append(self.ids[w])
        return out

    def decode(self, ids: list[int]) -> str:
        return " ".join(self.words[i] for i in ids if 0 <= i < len(self.words))


def tokenizer_answer(mode: str, vocab: Vocab, path: str, req: dict[str, Any]) -> bytes:
    """The 200 body of ``/tokenize`` or ``/detokenize`` in ``mode`` (not ``none`` or ``hang``)."""
    if path == "/detokenize":
        return json.dumps({"content": vocab.decode(list(req.get("tokens", [])))}).encode()
    text = str(req.get("content", req.get("prompt", "")))
    ids = vocab.encode(text)
    answers: dict[str, bytes] = {
        "ok": json.dumps({"tokens": ids}).encode(),
        "empty": b'{"tokens": []}',
        "constant": b'{"tokens": [1, 2, 3]}',
        "html": b"<html><body>tokenizer offline</body></html>",
        "strings": json.dumps({"tokens": text.split()}).encode(),
        "truncate": json.dumps({"tokens": ids[:40]}).encode(),
    }
    return answers[mode]


def metrics_body(mode: str, scrape: int, counters_text: str) -> tuple[bytes, str]:
    """(body, content type) of the ``scrape``-th ``/metrics`` answer in ``mode`` (not ``hang``)."""
    if mode == "garbage":
        return b"<html><body>{not: prometheus}</body></html>\n", "text/html"
    if mode == "restart":
        counters_text += f"# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds {1000.0 + scrape}\n"
    return counters_text.encode(), "text/plain; version=0.0.4"


def _event(obj: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def hostile_chunk(fault: str | None, payload: bytes, *, rid: str, step: int, sent: int, n: int, take: int,
                  chat: bool, auth: str, reasoning_tokens: int) -> bytes:
    """The SSE event of chunk ``step`` as a server with ``fault`` sends it, or ``payload`` unchanged."""
    if fault == "delta_oops" and step == 1:
        return _event({"id": rid, "choices": [{"index": 0, "delta": "oops"}]})
    if fault == "choices_int" and step == 1:
        return _event({"id": rid, "choices": 5})
    if fault == "draft_n_abc" and step == 1:
        return _event({"id": rid, "choices": [{"index": 0, "text": "x" * take}], "timings": {"draft_n": "abc"}})
    if fault == "negative_usage" and sent >= n:
        return _event({"id": rid, "choices": [{"index": 0, "text": "x"}], "usage": {"completion_tokens": -1000000}})
    if fault == "no_choices":
        return _event({"id": rid, "usage": {"completion_tokens": 0}})
    if fault == "echo_key_sse" and step == 1:
        return _event({"error": {"message": f"upstream rejected {auth}"}})
    if fault == "reasoning" and chat and step < reasoning_tokens:
        return _event({"id": rid, "choices": [{"index": 0, "delta": {"reasoning_content": "hm" * take}}],
                       "usage": {"prompt_tokens": 8, "completion_tokens": sent}})
    return payload
