"""A raw-socket HTTP peer for client tests: answers each request with scripted bytes, exactly as given.

Runs on the test's event loop (``async with RawPeer(...)``). Every request it reads (head up to the blank line,
then ``Content-Length`` bytes of body) is kept in ``requests`` as bytes; each answer is the next entry of
``answers``: a list of byte parts written in order, where the marker ``NEXT_REQUEST`` pauses until the client
sends its next request on that connection (or ``pause_limit`` seconds pass, whichever is first) — so a test can
see whether the client waits for the end of a message before it reuses the connection. ``close`` after an
answer's parts closes the connection. ``connections`` counts accepted connections.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

NEXT_REQUEST = object()
CLOSE = object()


@dataclass
class RawPeer:
    answers: list[list[object]]
    host: str = "127.0.0.1"
    pause_limit: float = 0.5
    requests: list[bytes] = field(default_factory=list)
    connections: int = 0
    port: int = 0
    _server: asyncio.Server | None = None
    _next: int = 0
    _handlers: set[asyncio.Task[None]] = field(default_factory=set)
    _writers: set[asyncio.StreamWriter] = field(default_factory=set)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    async def __aenter__(self) -> RawPeer:
        self._server = await asyncio.start_server(self._serve, self.host, 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for writer in self._writers:  # each handler then sees EOF and ends by itself (never cancelled)
            writer.transport.abort()
        if self._handlers:
            await asyncio.wait(self._handlers, timeout=5.0)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._server.wait_closed(), 2.0)

    async def _read_request(self, reader: asyncio.StreamReader) -> bytes | None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            return None
        length = 0
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        body = await reader.readexactly(length) if length else b""
        self.requests.append(head + body)
        return head + body

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        self._writers.add(writer)
        pending: asyncio.Task[bytes | None] | None = None
        try:
            while True:
                request = await pending if pending is not None else await self._read_request(reader)
                pending = None
                if request is None or self._next >= len(self.answers):
                    break
                parts = self.answers[self._next]
                self._next += 1
                closing = False
                for part in parts:
                    if part is NEXT_REQUEST:
                        pending = asyncio.ensure_future(self._read_request(reader))
                        await asyncio.wait([pending], timeout=self.pause_limit)
                    elif part is CLOSE:
                        closing = True
                    else:
                        assert isinstance(part, bytes)
                        writer.write(part)
                        await writer.drain()
                if closing:
                    break
        except ConnectionError:
            pass
        finally:
            if pending is not None and not pending.done():
                pending.cancel()
            self._writers.discard(writer)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


def chunked(*parts: bytes, trailers: bytes = b"") -> bytes:
    """A chunked body of ``parts`` ending with the zero chunk, ``trailers`` (header lines) and the final CRLF."""
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n" + trailers + b"\r\n"


def sse_ok(*events: bytes, head: bytes = b"") -> bytes:
    """A whole chunked ``200`` SSE response (keep-alive) carrying ``events``, after the optional ``head`` bytes."""
    return (head + b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
            + chunked(*events))


__all__ = ["CLOSE", "NEXT_REQUEST", "RawPeer", "chunked", "sse_ok"]
