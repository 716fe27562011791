"""Workloads: the prompts and the request body every arm receives.

Prompts come from a synthetic generator (``input_tokens`` exact when the server offers ``/tokenize`` and
``/detokenize`` — llama.cpp and vLLM shapes are both tried — else an approximation of 4 characters per token,
stated in ``input_tokens_source``), a ShareGPT-style JSON file (first human turn of each conversation) or a JSONL
file (``prompt`` or ``text`` per line). Output length is fixed with ``max_tokens`` (plus ``ignore_eos`` and
``min_tokens`` when asked, which the run warns distorts acceptance); temperature and seed are pinned.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from benchledger.bench.auxhttp import AuxError, AuxHTTP
from benchledger.bench.client import url_with_path
from benchledger.engines import known_tokenize_shapes
from benchledger.errors import BenchError

Endpoint = Literal["completions", "chat"]
ENDPOINT_PATHS: dict[str, str] = {"completions": "/v1/completions", "chat": "/v1/chat/completions"}
CHARS_PER_TOKEN_APPROX = 4

_WORDS = ["the", "model", "reads", "every", "weight", "once", "per", "step", "so", "memory", "bandwidth", "sets", "the", "pace", "of", "decoding", "while", "the", "draft", "proposes", "a", "few", "tokens", "and", "the", "target", "checks", "them", "together", "accepted", "tokens", "come", "for", "free", "rejected", "ones", "cost", "a", "verify", "step", "engineers", "measure", "time", "to", "first", "token", "time", "per", "output", "token", "and", "throughput", "at", "each", "level", "of", "concurrency", "because", "support", "is", "not", "benefit", "and", "a", "plausible", "number", "is", "worse", "than", "an", "absent", "one"]


@dataclass(frozen=True)
class Prompt:
    """One prompt and how its input length is known."""

    text: str
    input_tokens: int | None
    input_tokens_source: str
    note: str = ""
    """Why the length is only estimated, when a better source failed (said in every summary)."""


@dataclass(frozen=True)
class RequestSpec:
    """How every request of the run is made."""

    endpoint: Endpoint = "completions"
    model: str | None = None
    output_tokens: int = 64
    temperature: float | None = 0.0
    seed: int | None = 0
    ignore_eos: bool = False
    min_tokens: bool = False
    continuous_usage: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    def payload(self, prompt: Prompt, request_seed: int | None = None) -> dict[str, Any]:
        """The JSON body for one streamed request."""
        body: dict[str, Any] = {"max_tokens": self.output_tokens, "stream": True}
        body["stream_options"] = {"include_usage": True}
        if self.continuous_usage:
            body["stream_options"]["continuous_usage_stats"] = True
        if self.model:
            body["model"] = self.model
        if self.endpoint == "chat":
            body["messages"] = [{"role": "user", "content": prompt.text}]
        else:
            body["prompt"] = prompt.text
        if self.temperature is not None:
            body["temperature"] = self.temperature
        seed = request_seed if request_seed is not None else self.seed
        if seed is not None:
            body["seed"] = seed
        if self.ignore_eos:
            body["ignore_eos"] = True
        if self.min_tokens:
            body["min_tokens"] = self.output_tokens
        body.update(self.extra)
        return body


def _text_for(index: int, n_words: int, seed: int) -> str:
    rng = random.Random(seed * 1_000_003 + index)
    return " ".join(rng.choice(_WORDS) for _ in range(n_words))


class _Tokenizer:
    """The server's tokenizer over HTTP (llama.cpp or vLLM request shapes), each call under the aux deadline."""

    def __init__(self, base_url: str, model: str | None, http: AuxHTTP) -> None:
        self.base = base_url
        self.http = http
        self.model = model
        self.shape: str | None = None

    async def tokenize(self, text: str) -> list[int]:
        """Token ids of ``text``; TokenizerUnusable when no known shape gives a list of integer ids."""
        shapes = [self.shape] if self.shape else known_tokenize_shapes()
        why = "no answer"
        for shape in shapes:
            body: dict[str, Any] = {"content": text} if shape == "llamacpp" else {"prompt": text}
            if shape == "vllm" and self.model:
                body["model"] = self.model
            try:
                resp = await self.http.post(url_with_path(self.base, "/tokenize"), body)
                if resp.status != 200:
                    why = f"/tokenize answered HTTP {resp.status}"
                    continue
                ids = _token_ids(resp.json())
            except (AuxError, TokenizerUnusable) as exc:
                why = str(exc)
                continue
            if text and not ids:
                why = "/tokenize returned an empty token list for non-empty text"
                continue
            self.shape = shape
            return ids
        raise TokenizerUnusable(why)

    async def detokenize(self, tokens: list[int]) -> str | None:
        body: dict[str, Any] = {"tokens": tokens}
        if self.shape == "vllm" and self.model:
            body["model"] = self.model
        try:
            resp = await self.http.post(url_with_path(self.base, "/detokenize"), body)
            data = resp.json() if resp.status == 200 else None
        except AuxError:
            return None
        text = data.get("content", data.get("prompt")) if isinstance(data, dict) else None
        return text if isinstance(text, str) else None


class TokenizerUnusable(Exception):
    """The server's /tokenize gives no usable answer (the message says why); prompts fall back to an estimate."""


def _token_ids(data: Any) -> list[int]:
    tokens = data.get("tokens") if isinstance(data, dict) else None
    if not isinstance(tokens, list):
        raise TokenizerUnusable(f"/tokenize answer has no 'tokens' list: {str(data)[:80]!r}")
    out = []
    for t in tokens:
        value = t.get("id") if isinstance(t, dict) else t
        if isinstance(value, bool) or not isinstance(value, int):
            raise TokenizerUnusable(f"/tokenize returned a token that is not an integer id: {t!r:.40}")
        out.append(value)
    return out


async def synthetic_prompts(n: int, input_tokens: int, base_url: str | None, model: str | None, seed: int,
                            http: AuxHTTP | None = None) -> list[Prompt]:
    """``n`` distinct prompts of exactly ``input_tokens`` tokens (server tokenizer) or approximately so.

    A tokenizer that gives no usable answer (error, timeout, HTML, an empty list, string tokens) falls back to
    the 4-characters-per-token estimate, stated in each prompt's ``note``; one whose answer stops growing below
    the requested length (a constant answer, truncation at its max length) is a BenchError. Never loops.
    """
    note = ""
    if base_url:
        tok = _Tokenizer(base_url, model, http or AuxHTTP())
        try:
            await tok.tokenize("probe")
            return [await _exact_prompt(tok, i, input_tokens, seed) for i in range(n)]
        except TokenizerUnusable as exc:
            note = f"server /tokenize unusable ({exc}); prompt lengths estimated at 4 characters per token"
    chars = input_tokens * CHARS_PER_TOKEN_APPROX
    out = []
    for i in range(n):
        text = _text_for(i, input_tokens, seed)[:chars]
        out.append(Prompt(text=text, input_tokens=None, input_tokens_source="approx-4-chars-per-token", note=note))
    return out


MAX_GROW_STEPS = 16


async def _exact_prompt(tok: _Tokenizer, index: int, want: int, seed: int) -> Prompt:
    text = _text_for(index, want + 8, seed)
    ids = await tok.tokenize(text)
    for _ in range(MAX_GROW_STEPS):
        if len(ids) >= want:
            break
        text += " " + _text_for(index + 7919, want, seed)
        longer = await tok.tokenize(text)
        if len(longer) <= len(ids):
            raise BenchError(f"the server's /tokenize answer stopped growing at {len(ids)} tokens, below the "
                             f"requested {want} (truncated at its max length, or a constant answer): lower "
                             "--input-tokens or give --prompts")
        ids = longer
    if len(ids) < want:
        raise BenchError(f"could not reach {want} tokens with the server's tokenizer ({len(ids)} after "
                         f"{MAX_GROW_STEPS} extensions)")
    candidate = ids[:want]
    for _ in range(6):
        decoded = await tok.detokenize(candidate)
        if decoded is None:
            break
        got = await tok.tokenize(decoded)
        if len(got) == want:
            return Prompt(text=decoded, input_tokens=want, input_tokens_source="server-tokenize")
        candidate = got[:want] if len(got) > want else candidate + ids[len(candidate) : len(candidate) + want - len(got)]
    raise BenchError(f"could not build a prompt of exactly {want} tokens with the server's tokenizer")


def load_prompt_file(path: Path, n: int | None = None, deadline: float | None = None) -> list[Prompt]:
    """The first ``n`` prompts (all without ``n``) of a ShareGPT-style JSON list or a JSONL file (``prompt`` /
    ``text`` per line).

    Reads item by item and stops at the ``n``-th prompt, so a huge dataset costs only what is used; between
    items it checks ``deadline`` (a ``time.monotonic()`` value: BenchError once it has passed) and lets Ctrl-C
    through.
    """

    def check(where: str) -> None:
        if deadline is not None and time.monotonic() > deadline:
            raise BenchError(f"{path}: reading prompts did not finish before the prompt deadline ({where}): "
                             "raise --prompt-deadline or use a smaller file")

    texts: list[str] = []
    try:
        if path.suffix == ".jsonl":
            with path.open(encoding="utf-8") as fh:
                for lineno, line in enumerate(fh, 1):
                    if n is not None and len(texts) >= n:
                        break
                    check(f"line {lineno}")
                    if not line.strip():
                        continue
                    try:
                        obj = json.loads(line)
                    except ValueError as exc:
                        raise BenchError(f"{path}:{lineno}: invalid JSON: {exc}") from exc
                    text = obj.get("prompt", obj.get("text")) if isinstance(obj, dict) else None
                    if not isinstance(text, str):
                        raise BenchError(f"{path}:{lineno}: expected an object with a string 'prompt' or 'text'")
                    texts.append(text)
        else:
            for i, conv in enumerate(_json_list_items(_read_text(path, check), path)):
                check(f"item {i}")
                turns = conv.get("conversations") if isinstance(conv, dict) else None
                if not isinstance(turns, list):
                    raise BenchError(f"{path}: item {i}: expected a 'conversations' list")
                human = next((t.get("value") for t in turns if isinstance(t, dict) and t.get("from") in ("human", "user")), None)
                if isinstance(human, str) and human.strip():
                    texts.append(human)
                if n is not None and len(texts) >= n:
                    break  # (before the next item is decoded)
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchError(f"{path}: cannot read prompt file: {exc}") from exc
    if not texts:
        raise BenchError(f"{path}: no prompts found")
    return [Prompt(text=t, input_tokens=None, input_tokens_source="server-usage") for t in texts]


def _read_text(path: Path, check: Callable[[str], None], piece: int = 8 << 20) -> str:
    """A UTF-8 file's text, read in pieces with ``check`` (the deadline) and Ctrl-C between them."""
    parts: list[bytes] = []
    with path.open("rb") as fh:
        while data := fh.read(piece):
            parts.append(data)
            check(f"{sum(map(len, parts)) >> 20} MiB read")
    return b"".join(parts).decode("utf-8")


def _json_list_items(raw: str, path: Path) -> Iterator[Any]:
    """The items of the JSON list ``raw``, decoded one at a time (a BenchError names a malformed one)."""
    decoder = json.JSONDecoder()
    ws = re.compile(r"\s*")
    pos = ws.match(raw, 0).end()  # type: ignore[union-attr]
    if not raw.startswith("[", pos):
        raise BenchError(f"{path}: expected a ShareGPT-style list of conversations")
    pos = ws.match(raw, pos + 1).end()  # type: ignore[union-attr]
    if raw.startswith("]", pos):
        return
    while True:
        try:
            item, pos = decoder.raw_decode(raw, pos)
        except ValueError as exc:
            raise BenchError(f"{path}: invalid JSON: {exc}") from exc
        yield item
        pos = ws.match(raw, pos).end()  # type: ignore[union-attr]
        if raw.startswith("]", pos):
            return
        if not raw.startswith(",", pos):
            raise BenchError(f"{path}: invalid JSON: expected ',' or ']' at char {pos}")
        pos = ws.match(raw, pos + 1).end()  # type: ignore[union-attr]


__all__ = [
    "CHARS_PER_TOKEN_APPROX",
    "ENDPOINT_PATHS",
    "Endpoint",
    "Prompt",
    "RequestSpec",
    "TokenizerUnusable",
    "load_prompt_file",
    "synthetic_prompts",
]
