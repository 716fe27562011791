"""The streaming client: one HTTP/1.1 request per stream on a raw asyncio protocol, timestamps at arrival.

Why not a general HTTP library: the timestamp of a chunk must be taken when its bytes reach the process, not
when a coroutine later gets scheduled, and the hot path must cost little at 500 concurrent streams on one core.
So ``data_received`` stamps ``time.perf_counter()``, keeps the bytes with their stamp and only tracks the HTTP
chunk framing (to know when the response ends, without copying). Un-chunking, SSE splitting
(``RawStream.decode``) and JSON decoding (``parse_stream``) happen after the stream has ended, off the hot
path; an SSE event gets the stamp of the piece of bytes that completed it — the same as parsing on arrival.
Connections are reused through a keep-alive ``ConnectionPool`` when the caller gives one (the runner does: a
connect per request costs the client and the server an accept each, time taken from timestamping at hundreds of
streams); a pooled connection found closed before any response byte is retried once on a fresh one. TTFT starts
when the request is written, so connect time is never part of it. The API key is passed in, never stored.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from benchledger.bench.sse import SSEParser

CONTENT_KEYS = ("content", "reasoning_content", "reasoning")


@dataclass
class RawStream:
    """What came back for one request: times (perf_counter seconds), HTTP status, body pieces as they arrived.

    ``pieces`` are the response body's bytes (after the header, still chunk-framed when the server chunks) with
    their arrival stamps; ``decode`` turns them into ``events`` (timestamped SSE data) or ``body`` (non-200).
    """

    t_start: float
    t_sent: float | None = None
    t_end: float | None = None
    status: int | None = None
    events: list[tuple[float, str]] = field(default_factory=list)
    body: bytes = b""
    error: str | None = None
    pieces: list[tuple[float, bytes]] = field(default_factory=list)
    chunked: bool = False

    def decode(self) -> None:
        """Un-chunk and split ``pieces`` into ``events`` (status 200) or ``body``; idempotent."""
        if not self.pieces:
            return
        pieces, self.pieces = self.pieces, []
        chunked = _ChunkedDecoder() if self.chunked else None
        sse = SSEParser() if self.status == 200 else None
        body = bytearray()
        for t, data in pieces:
            part = chunked.feed(data) if chunked is not None else data
            if sse is None:
                body += part
                continue
            for event in sse.feed(part):
                self.events.append((t, event.data))
        if sse is not None:
            last = pieces[-1][0]
            for event in sse.close():
                self.events.append((last, event.data))
        self.body += bytes(body)


class _ChunkFramer:
    """Follows HTTP/1.1 chunk framing to spot the end of the body, without copying the data."""

    __slots__ = ("done", "need", "tail")

    def __init__(self) -> None:
        self.need = 0  # bytes of chunk data + its CRLF still to pass
        self.tail = b""  # an unfinished size line
        self.done = False

    def feed(self, data: bytes) -> None:
        pos, end = 0, len(data)
        while pos < end and not self.done:
            if self.need:
                take = min(self.need, end - pos)
                self.need -= take
                pos += take
                continue
            nl = data.find(b"\n", pos)
            if nl < 0:
                self.tail += data[pos:]
                return
            line = self.tail + data[pos:nl]
            self.tail = b""
            pos = nl + 1
            size = int(line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                self.done = True
            else:
                self.need = size + 2


class _ChunkedDecoder:
    """Incremental decoder of HTTP/1.1 chunked transfer encoding."""

    __slots__ = ("_buf", "_left", "done")

    def __init__(self) -> None:
        self._buf = b""
        self._left = -1  # -1: expecting a size line; -2: expecting the CRLF after data
        self.done = False

    def feed(self, data: bytes) -> bytes:
        self._buf += data
        out = bytearray()
        while not self.done:
            if self._left == -1:
                nl = self._buf.find(b"\r\n")
                if nl < 0:
                    break
                size = int(self._buf[:nl].split(b";")[0].strip() or b"0", 16)
                self._buf = self._buf[nl + 2 :]
                if size == 0:
                    self.done = True
                    break
                self._left = size
            elif self._left == -2:
                if len(self._buf) < 2:
                    break
                self._buf = self._buf[2:]
                self._left = -1
            else:
                take = self._buf[: self._left]
                out += take
                self._buf = self._buf[len(take) :]
                self._left -= len(take)
                if self._left == 0:
                    self._left = -2
                else:
                    break
        return bytes(out)


class _StreamProtocol(asyncio.Protocol):
    """Receives HTTP responses on one connection, one at a time; stamps each piece of bytes on arrival."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.raw: RawStream | None = None
        self.done: asyncio.Future[None] | None = None
        self.dead = False
        self.reusable = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def begin(self, raw: RawStream, done: asyncio.Future[None]) -> None:
        """Expect the response to a request about to be written."""
        self.raw, self.done = raw, done
        self.head = b""
        self.in_body = False
        self.framer: _ChunkFramer | None = None
        self.length: int | None = None
        self.received = 0
        self.keep_alive = True
        self.reusable = False

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter()
        raw = self.raw
        if raw is None:  # bytes nobody asked for on an idle connection: never reuse it
            self.dead = True
            return
        if not self.in_body:
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                return
            data = self.head[end + 4 :]
            self._parse_head(raw, self.head[:end])
            self.in_body = True
        if data:
            raw.pieces.append((now, data))
        if self.framer is not None:
            self.framer.feed(data)
            finished = self.framer.done
        else:
            self.received += len(data)
            finished = self.length is not None and self.received >= self.length
        if finished:
            self.reusable = self.keep_alive
            self._finish(now)

    def _parse_head(self, raw: RawStream, head: bytes) -> None:
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        raw.status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
        self.keep_alive = parts[0] != "HTTP/1.0"
        for line in lines[1:]:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "transfer-encoding" and "chunked" in value.lower():
                self.framer = _ChunkFramer()
                raw.chunked = True
            elif name == "content-length":
                self.length = int(value.strip())
            elif name == "connection" and "close" in value.lower():
                self.keep_alive = False

    def _finish(self, now: float) -> None:
        raw, done = self.raw, self.done
        self.raw = self.done = None
        if raw is not None and raw.t_end is None:
            raw.t_end = now
        if done is not None and not done.done():
            done.set_result(None)

    def eof_received(self) -> bool | None:
        self.dead = True
        if self.raw is not None:
            truncated = not self.in_body or (self.framer is not None and not self.framer.done) or (
                self.length is not None and self.received < self.length
            )
            if truncated and self.raw.error is None:
                self.raw.error = "connection closed by the server before the response was complete"
            self._finish(time.perf_counter())
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.dead = True
        if self.raw is not None:
            if exc is not None or not self.in_body:
                self.raw.error = f"connection lost: {exc or 'closed before a response'}"
            self._finish(time.perf_counter())


class ConnectionPool:
    """Idle keep-alive connections per (host, port, TLS), reused by ``stream_request`` within one event loop.

    A connection goes back only after a complete response that did not say ``Connection: close``; one that saw
    EOF, an error, stray bytes or a timeout is closed. Reusing saves a TCP connect per request on the client and
    an accept on the server — at hundreds of streams both steal time from timestamping. ``close`` ends them all.
    """

    def __init__(self) -> None:
        self._idle: dict[tuple[str, int, bool], list[_StreamProtocol]] = {}

    def take(self, key: tuple[str, int, bool]) -> _StreamProtocol | None:
        """An idle, live connection for ``key``, or None."""
        idle = self._idle.get(key)
        while idle:
            proto = idle.pop()
            if not proto.dead and proto.transport is not None and not proto.transport.is_closing():
                return proto
            if proto.transport is not None:
                proto.transport.close()
        return None

    def give(self, key: tuple[str, int, bool], proto: _StreamProtocol) -> None:
        """Return a connection after its response: kept when reusable, closed otherwise."""
        if proto.reusable and not proto.dead and proto.transport is not None and not proto.transport.is_closing():
            proto.reusable = False
            self._idle.setdefault(key, []).append(proto)
        elif proto.transport is not None:
            proto.transport.close()

    def close(self) -> None:
        for protos in self._idle.values():
            for proto in protos:
                if proto.transport is not None:
                    proto.transport.close()
        self._idle.clear()


async def stream_request(
    url: str, path: str, payload: dict[str, Any], *, timeout: float, api_key: str | None = None,  # noqa: ASYNC109
    pool: ConnectionPool | None = None,
) -> RawStream:
    """POST ``payload`` as JSON to ``url + path`` and collect the streamed response with arrival times.

    Without ``pool`` every request opens its own connection (``Connection: close``). With one, an idle
    keep-alive connection is reused when there is one; if a reused connection turns out closed before any
    byte of the response came back, the request is sent once more on a fresh connection.
    Never raises for network or server trouble: the error is in ``RawStream.error`` and whatever arrived is kept.
    """
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    secure = parts.scheme == "https"
    port = parts.port or (443 if secure else 80)
    key = (host, port, secure)
    target = (parts.path.rstrip("/") + path) or "/"
    body = json.dumps(payload).encode()
    headers = [
        f"POST {target} HTTP/1.1",
        f"Host: {host}:{port}",
        "Content-Type: application/json",
        "Accept: text/event-stream",
        f"Content-Length: {len(body)}",
        "Connection: keep-alive" if pool is not None else "Connection: close",
    ]
    if api_key:
        headers.append(f"Authorization: Bearer {api_key}")
    request = ("\r\n".join(headers) + "\r\n\r\n").encode() + body
    raw = RawStream(t_start=time.perf_counter())
    loop = asyncio.get_running_loop()
    proto: _StreamProtocol | None = None
    try:
        async with asyncio.timeout(timeout):
            for _attempt in range(2):
                proto = pool.take(key) if pool is not None else None
                reused = proto is not None
                if proto is None:
                    _, proto = await loop.create_connection(
                        _StreamProtocol, host, port, ssl=ssl.create_default_context() if secure else None)
                assert proto.transport is not None
                done: asyncio.Future[None] = loop.create_future()
                proto.begin(raw, done)
                proto.transport.write(request)
                raw.t_sent = time.perf_counter()
                await done
                if reused and raw.status is None and raw.error is not None and not raw.pieces:
                    # the pooled connection was already closed by the server: once more on a fresh one
                    proto.transport.close()
                    raw.error = raw.t_end = raw.t_sent = None
                    continue
                break
    except TimeoutError:
        raw.error = f"timeout: no complete response within {timeout:g} s"
        raw.t_end = time.perf_counter()
    except OSError as exc:
        raw.error = f"connect failed: {exc}"
        raw.t_end = time.perf_counter()
    except asyncio.CancelledError:
        # The run was interrupted (SIGINT / stop): keep what arrived, say why it ended. Deliberately not
        # re-raised so the caller still gets this request's record and can write it.
        raw.error = "interrupted: the run was stopped while this request was in flight"
        raw.t_end = time.perf_counter()
    finally:
        if proto is not None:
            if proto.raw is not None:  # still expecting this response (timeout, interrupt): never reuse
                proto.raw = proto.done = None
                proto.reusable = False
            if pool is not None:
                pool.give(key, proto)
            elif proto.transport is not None:
                proto.transport.close()
    if raw.status != 200:
        raw.decode()
    if raw.error is None and raw.status != 200:
        text = raw.body.decode("utf-8", errors="replace").strip()
        raw.error = f"HTTP {raw.status}: {text[:300]}"
    return raw


__all__ = ["CONTENT_KEYS", "ConnectionPool", "RawStream", "stream_request"]
