"""The streaming client: one HTTP/1.1 request per stream on a raw asyncio protocol, timestamps at arrival.

Why not a general HTTP client: the timestamp of a chunk must be taken when its bytes reach the process, not
when a coroutine later gets scheduled, and the hot path must cost little at 500 concurrent streams on one core.
So the protocol stamps ``time.perf_counter()`` as the bytes come in and then feeds them to an HTTP/1.1 parser
(httptools, i.e. llhttp in C): it un-chunks the body (the only chunk decoder; trailers and the final CRLF are
consumed, so a reused connection starts clean), skips 1xx interim responses, and rejects a malformed status
line, ``Content-Length`` or chunk-size line — that request then fails with the parser's reason and the
connection is closed; nothing is raised inside the protocol. Body pieces are kept with their stamps; SSE
splitting (``RawStream.data_events``) and JSON decoding (``parse_stream``) happen after the stream has ended,
off the hot path; an SSE event gets the stamp of the piece of bytes that completed it — the same as parsing on
arrival. On asyncio's own loop the protocol is a ``BufferedProtocol`` reading into one reused buffer per thread:
asyncio's ``data_received`` path allocates a 256 KiB ``bytes`` per read and shrinks it, which costs more than
everything else done per chunk (``benchmarks/client_overhead.py``); uvloop reads into its own buffer, so there
the plain ``data_received`` protocol is used. Connections are reused through a keep-alive ``ConnectionPool`` when the caller gives one (the runner
does: a connect per request costs the client and the server an accept each, time taken from timestamping at
hundreds of streams); a pooled connection found closed before any response byte is retried once on a fresh
one. TTFT starts when the request is written, so connect time is never part of it. Proxies and TLS follow
``bench.netpolicy`` (proxies ignored, system trust store). The API key is passed in, never stored.
"""

from __future__ import annotations

import asyncio
import functools
import json
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

import httptools

from benchledger.bench.netpolicy import tls_context
from benchledger.bench.sse import SSEParser, simple_events

CONTENT_KEYS = ("content", "reasoning_content", "reasoning")


@dataclass
class RawStream:
    """What came back for one request: times (perf_counter seconds), HTTP status, body pieces as they arrived.

    ``pieces`` are the response body's bytes (un-chunked) with their arrival stamps; ``decode`` turns them
    into ``events`` (timestamped SSE data) or ``body`` (non-200).
    """

    t_start: float
    t_sent: float | None = None
    t_end: float | None = None
    status: int | None = None
    events: list[tuple[float, str]] = field(default_factory=list)
    body: bytes = b""
    error: str | None = None
    pieces: list[tuple[float, bytes]] = field(default_factory=list)

    def decode(self) -> None:
        """Split ``pieces`` into ``events`` (status 200) or ``body``; idempotent."""
        if not self.pieces:
            return
        pieces, self.pieces = self.pieces, []
        if self.status != 200:
            self.body += b"".join(data for _, data in pieces)
            return
        simple = simple_events(pieces)
        if simple is not None:
            self.events += [(t, data.decode("utf-8", errors="replace")) for t, data in simple]
            return
        sse = SSEParser()
        i, n = 0, len(pieces)
        while i < n:  # pieces of one arrival (several HTTP chunks in one read) are fed as one
            t, data = pieces[i]
            j = i + 1
            while j < n and pieces[j][0] == t:
                j += 1
            if j > i + 1:
                data = b"".join(p for _, p in pieces[i:j])
            for event in sse.feed(data):
                self.events.append((t, event.data))
            i = j
        last = pieces[-1][0]
        for event in sse.close():
            self.events.append((last, event.data))

    def data_events(self) -> Sequence[tuple[float, bytes | str]]:
        """Every SSE ``data`` payload with its stamp, for ``response.parse_stream``: undecoded bytes when the whole
        body has the common shape (``sse.simple_events``; ``pieces`` are then left as they are), else the text
        ``events`` (``decode``)."""
        if self.status == 200 and self.pieces and not self.events:
            simple = simple_events(self.pieces)
            if simple is not None:
                return simple
        self.decode()
        return self.events


class _StreamProtocol(asyncio.Protocol):
    """Receives HTTP responses on one connection, one at a time; stamps each piece of bytes on arrival.

    Also the httptools parser's callback object (``on_*`` methods); a fresh parser per response.
    """

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.raw: RawStream | None = None
        self.done: asyncio.Future[None] | None = None
        self.dead = False
        self.reusable = False
        self._parser: httptools.HttpResponseParser | None = None
        self._now = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # (uvloop's transports do not subclass asyncio's)

    def begin(self, raw: RawStream, done: asyncio.Future[None]) -> None:
        """Expect the response to a request about to be written."""
        self.raw, self.done = raw, done
        self._parser = httptools.HttpResponseParser(self)
        self.in_body = False  # a final (non-1xx) response's header is complete
        self.framed = False  # it has a Content-Length or chunked Transfer-Encoding (else it ends at EOF)
        self.keep_alive = True
        self.reusable = False

    # --- the hot path ---------------------------------------------------------------------------------------
    def data_received(self, data: bytes | memoryview) -> None:
        self._now = time.perf_counter()  # stamped before any parsing
        parser = self._parser
        if self.raw is None or parser is None:  # bytes nobody asked for on an idle connection: never reuse it
            self.dead = True
            return
        try:
            parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._fail("the server switched protocols (HTTP 101), which was not asked for")
        except httptools.HttpParserError as exc:
            self._fail(f"malformed HTTP response: {exc}")

    def on_body(self, body: bytes) -> None:
        if self.raw is not None:
            self.raw.pieces.append((self._now, body))

    # --- once per response ----------------------------------------------------------------------------------
    def on_message_begin(self) -> None:
        if self.raw is None:  # a second response after the one asked for: the connection is out of step
            self.dead = True
        self.framed = False

    def on_header(self, name: bytes, value: bytes) -> None:
        if self.in_body:  # headers after the body are chunk trailers: consumed, not used
            return
        name = name.lower()
        if name == b"content-length" or (name == b"transfer-encoding" and b"chunked" in value.lower()):
            self.framed = True

    def on_headers_complete(self) -> None:
        parser, raw = self._parser, self.raw
        if parser is None or raw is None:
            return
        status = parser.get_status_code()
        if 100 <= status < 200 and status != 101:
            return  # interim (100 Continue, 103 Early Hints): the final response follows
        raw.status = status
        self.keep_alive = parser.should_keep_alive()
        self.in_body = True

    def on_message_complete(self) -> None:
        if self.in_body:
            self.reusable = self.keep_alive
            self._finish()

    # --- endings --------------------------------------------------------------------------------------------
    def _fail(self, reason: str) -> None:
        self.dead = True
        if self.raw is not None and self.raw.error is None:
            self.raw.error = reason
        if self.transport is not None:
            self.transport.close()
        self._finish()

    def _finish(self) -> None:
        raw, done = self.raw, self.done
        self.raw = self.done = None
        if raw is not None and raw.t_end is None:
            raw.t_end = self._now
        if done is not None and not done.done():
            done.set_result(None)

    def eof_received(self) -> bool | None:
        self.dead = True
        if self.raw is not None:
            self._now = time.perf_counter()
            if (not self.in_body or self.framed) and self.raw.error is None:
                # a response without Content-Length or chunking ends at EOF; any other is cut short
                self.raw.error = "connection closed by the server before the response was complete"
            self._finish()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.dead = True
        if self.raw is not None:
            self._now = time.perf_counter()
            if self.raw.error is None and (exc is not None or not self.in_body or self.framed):
                self.raw.error = f"connection lost: {exc or 'closed before a complete response'}"
            self._finish()


READ_BUFFER_BYTES = 64 * 1024
_thread_buffers = threading.local()


def _read_buffer() -> memoryview:
    """This thread's receive buffer: a read is fed to the parser (which copies what it keeps) before the next
    read, and one thread runs one event loop at a time, so every connection of the loop can share it."""
    view: memoryview | None = getattr(_thread_buffers, "view", None)
    if view is None:
        view = _thread_buffers.view = memoryview(bytearray(READ_BUFFER_BYTES))
    return view


class _BufferedStreamProtocol(_StreamProtocol, asyncio.BufferedProtocol):
    """``_StreamProtocol`` reading into the thread's buffer (``recv_into``), for asyncio's selector loop."""

    def __init__(self) -> None:
        super().__init__()
        self._buffer = _read_buffer()

    def get_buffer(self, sizehint: int) -> memoryview:
        return self._buffer

    def buffer_updated(self, nbytes: int) -> None:
        self.data_received(self._buffer[:nbytes])  # (which stamps the time first)


def _protocol_for(loop: asyncio.AbstractEventLoop) -> type[_StreamProtocol]:
    """The buffered protocol on asyncio's selector loop (its ``data_received`` path allocates 256 KiB per read),
    the plain one elsewhere (uvloop reads into a buffer of its own)."""
    return _BufferedStreamProtocol if isinstance(loop, asyncio.SelectorEventLoop) else _StreamProtocol


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


@functools.lru_cache(maxsize=64)
def request_target(url: str, path: str) -> tuple[str, int, bool, str, str]:
    """(host, port, TLS?, ``Host`` header, request target) for ``path`` under the server root ``url``.

    ``path`` is appended to the URL's path and the URL's query string is kept (``?api-version=…``); an IPv6
    literal is bracketed in the ``Host`` header (``[::1]:8000``), which names the port only when the URL does.
    """
    parts = urlsplit(url)
    host = parts.hostname or "127.0.0.1"
    secure = parts.scheme == "https"
    port = parts.port or (443 if secure else 80)
    host_header = f"[{host}]" if ":" in host else host
    if parts.port is not None:
        host_header += f":{parts.port}"
    target = (parts.path.rstrip("/") + path) or "/"
    if parts.query:
        target += ("&" if "?" in target else "?") + parts.query
    return host, port, secure, host_header, target


def url_with_path(url: str, path: str) -> str:
    """``path`` appended to the URL's path, its query string kept after it (``http://h/x?k=v`` + ``/metrics`` →
    ``http://h/x/metrics?k=v``): the URL of every auxiliary call under a server root."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + path))


@functools.lru_cache(maxsize=64)
def _request_head(url: str, path: str, keep_alive: bool) -> tuple[str, int, bool, bytes]:
    """(host, port, TLS?, the request's head up to its per-request headers) — the same for every request."""
    host, port, secure, host_header, target = request_target(url, path)
    head = (f"POST {target} HTTP/1.1\r\nHost: {host_header}\r\nContent-Type: application/json\r\n"
            f"Accept: text/event-stream\r\nConnection: {'keep-alive' if keep_alive else 'close'}\r\n")
    return host, port, secure, head.encode()


async def stream_request(
    url: str, path: str, payload: dict[str, Any] | bytes, *, timeout: float,  # noqa: ASYNC109
    api_key: str | None = None, pool: ConnectionPool | None = None,
) -> RawStream:
    """POST ``payload`` as JSON (or bytes already serialised) to ``url + path`` and collect the streamed response
    with arrival times.

    Without ``pool`` every request opens its own connection (``Connection: close``). With one, an idle
    keep-alive connection is reused when there is one; if a reused connection turns out closed before any
    byte of the response came back, the request is sent once more on a fresh connection.
    Never raises for network or server trouble: the error is in ``RawStream.error`` and whatever arrived is kept.
    """
    host, port, secure, head = _request_head(url, path, pool is not None)
    key = (host, port, secure)
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    auth = f"Authorization: Bearer {api_key}\r\n".encode() if api_key else b""
    request = b"%sContent-Length: %d\r\n%s\r\n%s" % (head, len(body), auth, body)
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
                        _protocol_for(loop), host, port, ssl=tls_context() if secure else None)
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


__all__ = ["CONTENT_KEYS", "ConnectionPool", "RawStream", "request_target", "stream_request", "url_with_path"]
