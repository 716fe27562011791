"""Auxiliary HTTP calls of a run (tokenize, detokenize, metrics, health, version) under one total deadline each.

A call's deadline covers connect, headers and the whole body together (not a per-read timeout that a server
trickling one byte a second restarts forever), and all its attempts. Calls are async, on the run's event loop,
so a SIGINT/SIGTERM handler cancels them at once. Proxies and TLS follow ``bench.netpolicy``, as the streaming
client's do. The API key is sent, never stored or logged.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

from benchledger.bench.netpolicy import httpx_options

DEFAULT_AUX_DEADLINE_S = 5.0


class AuxError(Exception):
    """An auxiliary call that gave no usable answer (the message says why, in one line)."""


@dataclass(frozen=True)
class AuxResponse:
    """Status and body text of one auxiliary answer."""

    status: int
    text: str

    def json(self) -> Any:
        """The body as JSON, or AuxError naming what came instead."""
        try:
            return json.loads(self.text)
        except ValueError:
            raise AuxError(f"answer is not JSON: {self.text[:80]!r}") from None


@dataclass(frozen=True)
class AuxHTTP:
    """Auxiliary GET/POST with a total ``deadline`` (seconds) per call; ``attempts`` each on a fresh connection."""

    deadline: float = DEFAULT_AUX_DEADLINE_S
    api_key: str | None = None
    attempts: int = 2

    async def request(self, method: str, url: str, body: Any = None) -> AuxResponse:
        """One call (retried on transport errors within the same deadline); raises AuxError."""
        import httpx

        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        last = "no attempt"
        try:
            async with asyncio.timeout(self.deadline):
                for attempt in range(max(self.attempts, 1)):
                    try:
                        async with httpx.AsyncClient(timeout=None, headers=headers, **httpx_options()) as client:
                            resp = await client.request(method, url, json=body)
                            return AuxResponse(resp.status_code, resp.text)
                    except httpx.HTTPError as exc:
                        last = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                        await asyncio.sleep(0.05 * (attempt + 1))
        except TimeoutError:
            raise AuxError(f"{method} {url}: no complete answer within {self.deadline:g} s") from None
        raise AuxError(f"{method} {url}: {last}")

    async def get(self, url: str) -> AuxResponse:
        return await self.request("GET", url)

    async def post(self, url: str, body: Any) -> AuxResponse:
        return await self.request("POST", url, body)

    async def get_ok_text(self, url: str) -> str:
        """The body of a 200 answer; AuxError for any other status."""
        resp = await self.get(url)
        if resp.status != 200:
            raise AuxError(f"GET {url}: HTTP {resp.status}")
        return resp.text


__all__ = ["DEFAULT_AUX_DEADLINE_S", "AuxError", "AuxHTTP", "AuxResponse"]
