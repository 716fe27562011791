"""Reference client for the overhead benchmark: vLLM ``bench serve``'s client design, re-implemented.

This is not our harness and not imported by the package. It reproduces, in our own code, how vLLM's
``vllm/benchmarks/serve.py`` and ``vllm/benchmarks/lib/endpoint_request_func.py``
(``async_request_openai_completions``) time a streamed ``/v1/completions`` request, so the harness can be
compared with it on the same fake server (issue 3: "no worse than vLLM bench serve's client design"):

- one asyncio process, one ``aiohttp.ClientSession`` for the whole run, whose ``TCPConnector`` pools keep-alive
  connections (``limit`` = ``limit_per_host`` = max concurrency, ``keepalive_timeout=60``, ``force_close=False``,
  DNS cache on), total timeout 6 h;
- before the run every GC generation is collected and the heap frozen (``gc.freeze()``, vLLM's
  ``freeze_gc_heap``);
- closed loop: one task per request created up front, each inside an ``asyncio.Semaphore(max_concurrency)``;
- per request: ``st = time.perf_counter()`` before ``session.post(url, json=payload, headers=...)`` (so pool
  acquisition, connect and request serialisation fall inside TTFT); the request id goes out as the
  ``x-request-id`` header (vLLM sends it when the input has a ``request_id``); the body is read with
  ``response.content.iter_any()``; each piece is stripped and fed to an incremental UTF-8 decoder that splits
  messages on a blank line — or, when the leftover starts with ``data: `` and already parses as JSON (or is
  ``[DONE]``), takes it as complete; per message: ``:`` comments skipped, the ``data: `` prefix dropped,
  ``[DONE]`` ignored, the rest ``json.loads``-ed; a message with ``choices`` is a token chunk stamped with
  ``time.perf_counter()`` *after* the JSON decode (first → TTFT, later → ITL), a message with only ``usage``
  sets the output token count;
- latency = last token-chunk stamp − ``st``; TPOT = (latency − TTFT) / (output tokens − 1) (vLLM's
  ``calculate_metrics``).

vLLM's version read for this: ``vllm-project/vllm`` ``vllm/benchmarks/lib/endpoint_request_func.py`` at commit
02cfb534df5674737558730b10f23d1b7aef9b7c (``iter_any()`` + ``StreamedResponseHandler``; older releases iterated
``async for chunk in response.content`` line by line).
"""

from __future__ import annotations

import asyncio
import codecs
import gc
import json
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp


class MessageSplitter:
    """Bytes pieces in, complete SSE messages (text) out — the splitting rule described in the module doc."""

    def __init__(self) -> None:
        self.pending = ""
        self.decoder = codecs.getincrementaldecoder("utf-8")()

    def feed(self, piece: bytes) -> list[str]:
        self.pending += self.decoder.decode(piece)
        out = []
        while "\n\n" in self.pending:
            message, self.pending = self.pending.split("\n\n", 1)
            message = message.strip()
            if message:
                out.append(message)
        if self.pending.startswith("data: "):
            rest = self.pending[len("data: "):].strip()
            if rest == "[DONE]":
                out.append(self.pending.strip())
                self.pending = ""
            elif rest:
                try:
                    json.loads(rest)
                except json.JSONDecodeError:
                    return out  # incomplete JSON: wait for more bytes
                out.append(self.pending.strip())
                self.pending = ""
        return out


@dataclass
class Outcome:
    """What the vLLM design keeps per request (its ``RequestFuncOutput``), plus the id sent."""

    request_id: str
    success: bool = False
    start_time: float = 0.0
    ttft: float = 0.0
    latency: float = 0.0
    itl: list[float] = field(default_factory=list)
    output_tokens: int = 0
    error: str = ""

    @property
    def tpot(self) -> float | None:
        if self.output_tokens > 1:
            return (self.latency - self.ttft) / (self.output_tokens - 1)
        return None


async def one_request(session: aiohttp.ClientSession, url: str, payload: dict[str, Any], request_id: str) -> Outcome:
    """Stream one completion the way the vLLM design does (see module doc)."""
    out = Outcome(request_id=request_id)
    headers = {"x-request-id": request_id}
    st = time.perf_counter()
    out.start_time = st
    last = st
    first = False
    try:
        async with session.post(url=url, json=payload, headers=headers) as response:
            if response.status != 200:
                out.error = response.reason or ""
                return out
            splitter = MessageSplitter()
            async for piece in response.content.iter_any():
                piece = piece.strip()
                if not piece:
                    continue
                for message in splitter.feed(piece):
                    if message.startswith(":"):
                        continue
                    data = message.removeprefix("data: ")
                    if data == "[DONE]":
                        continue
                    obj = json.loads(data)
                    if obj.get("choices"):
                        now = time.perf_counter()
                        if first:
                            out.itl.append(now - last)
                        else:
                            first = True
                            out.ttft = now - st
                        last = now
                    elif usage := obj.get("usage"):
                        out.output_tokens = usage.get("completion_tokens")
            out.success = first
            out.latency = last - st
            if not first:
                out.error = "no chunk with choices"
    except Exception as exc:  # the design records any failure as the request's error
        out.error = repr(exc)
    return out


async def run_closed_loop(url: str, warmup: list[dict[str, Any]], payloads: list[dict[str, Any]],
                          concurrency: int, prefix: str) -> tuple[list[Outcome], list[Outcome]]:
    """Warmup, then the measured ``payloads``, at ``concurrency`` streams over one pooled session (as vLLM:
    the GC heap is frozen before the session exists; warmups use the same session, so its pool is warm)."""
    freeze_gc()
    connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=concurrency, ttl_dns_cache=300,
                                     use_dns_cache=True, keepalive_timeout=60, enable_cleanup_closed=True,
                                     force_close=False)
    async with aiohttp.ClientSession(connector=connector, trust_env=True,
                                     timeout=aiohttp.ClientTimeout(total=6 * 60 * 60)) as session:
        sem = asyncio.Semaphore(concurrency)

        async def limited(name: str, payload: dict[str, Any]) -> Outcome:
            async with sem:
                return await one_request(session, url, payload, name)

        async def phase(tag: str, batch: list[dict[str, Any]]) -> list[Outcome]:
            tasks = [asyncio.create_task(limited(f"{prefix}-{tag}-{i}", p)) for i, p in enumerate(batch)]
            return list(await asyncio.gather(*tasks))

        warm = await phase("warmup", warmup)
        return warm, await phase("measured", payloads)


def freeze_gc() -> None:
    """vLLM's ``freeze_gc_heap``: collect every generation, then freeze what is alive."""
    gc.collect(0)
    gc.collect(1)
    gc.collect(2)
    gc.freeze()


__all__ = ["MessageSplitter", "Outcome", "freeze_gc", "one_request", "run_closed_loop"]
