"""The client's HTTP/1.1 handling against a raw-socket peer: framing, trailers, 1xx, bad sizes, Host, query, proxies.

Each test drives ``stream_request`` over a real socket to ``tests/fakes/raw_http_peer.py``, which writes exactly
the bytes given; the parser's split tolerance is checked by feeding the protocol arbitrary pieces.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.fakes.raw_http_peer import CLOSE, NEXT_REQUEST, RawPeer, chunked, sse_ok

from benchledger.bench.client import (
    ConnectionPool,
    RawStream,
    _StreamProtocol,
    request_target,
    stream_request,
)

EVENTS = [b'data: {"a": 1}\n\n', b'data: {"b": 2}\n\ndata: [DONE]\n\n']
DATA = ['{"a": 1}', '{"b": 2}', "[DONE]"]
PATH = "/v1/completions"


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points) if b > a]


async def fetch(url: str, pool: ConnectionPool | None = None) -> RawStream:
    return await stream_request(url, PATH, {"prompt": "x"}, timeout=10.0, pool=pool)


class LoopErrors:
    """Collects what reaches the event loop's exception handler (an exception raised inside a protocol)."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        asyncio.get_running_loop().set_exception_handler(lambda _loop, ctx: self.seen.append(ctx))


# --- the parser, fed arbitrary pieces (no socket) ---------------------------------------------------------------

STREAM = (b"HTTP/1.1 103 Early Hints\r\nLink: </x>; rel=preload\r\n\r\n"
          b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
          + chunked(*EVENTS, trailers=b"X-Usage: 3\r\n"))


@settings(deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_any_split_gives_the_same_events_and_ends_exactly_at_the_last_byte(cuts: list[int]) -> None:
    async def main() -> tuple[RawStream, _StreamProtocol, list[bool]]:
        proto, raw = _StreamProtocol(), RawStream(t_start=0.0)
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        proto.begin(raw, done)
        finished = []
        for piece in split(STREAM, cuts):
            proto.data_received(piece)
            finished.append(done.done())
        return raw, proto, finished

    raw, proto, finished = asyncio.run(main())
    # done only once the final CRLF after the trailers is in, never before
    assert finished[-1] and not any(finished[:-1])
    assert raw.status == 200 and raw.error is None and proto.reusable and not proto.dead
    raw.decode()
    assert [d for _, d in raw.events] == DATA


@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_decode_stamps_each_event_with_the_piece_that_completed_it(cuts: list[int]) -> None:
    body = b"".join(EVENTS)
    pieces = split(body, cuts)
    raw = RawStream(t_start=0.0, status=200, pieces=[(float(i), p) for i, p in enumerate(pieces)])
    raw.decode()
    assert [d for _, d in raw.events] == DATA
    ends = []
    for marker in (b'1}\n\n', b'2}\n\n', b"[DONE]\n\n"):
        pos, total = body.index(marker) + len(marker), 0
        ends.append(next(float(i) for i, p in enumerate(pieces) if (total := total + len(p)) >= pos))
    assert [t for t, _ in raw.events] == ends
    raw.decode()  # idempotent
    assert len(raw.events) == 3


def test_decode_of_an_error_body_goes_to_body() -> None:
    raw = RawStream(t_start=0.0, status=500, pieces=[(1.0, b'{"error": '), (2.0, b'"x"}')])
    raw.decode()
    assert raw.body == b'{"error": "x"}' and raw.events == []


# --- over a real socket -----------------------------------------------------------------------------------------

async def test_trailers_and_final_crlf_are_read_before_the_connection_is_reused() -> None:
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    body = chunked(*EVENTS, trailers=b"X-Checksum: abc\r\n")
    cut = body.rindex(b"\r\n0\r\n") + 5  # the zero-size line is out; trailers and final CRLF come later
    # a client that reuses the connection after "0\r\n" sends its next request early; the peer then writes
    # the trailers, which that client would read as the head of its second response
    peer = RawPeer([[head + body[:cut], NEXT_REQUEST, body[cut:]], [sse_ok(*EVENTS)]])
    pool = ConnectionPool()
    async with peer:
        first = await fetch(peer.url, pool)
        second = await fetch(peer.url, pool)
    pool.close()
    for raw in (first, second):
        raw.decode()
        assert raw.error is None and raw.status == 200 and [d for _, d in raw.events] == DATA
    assert peer.connections == 1


@pytest.mark.parametrize("interim", [
    b"HTTP/1.1 100 Continue\r\n\r\n",
    b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n",
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n",
])
async def test_interim_1xx_responses_are_not_taken_as_final(interim: bytes) -> None:
    async with RawPeer([[sse_ok(*EVENTS, head=interim), CLOSE]]) as peer:
        raw = await fetch(peer.url)
    raw.decode()
    assert raw.status == 200 and raw.error is None and [d for _, d in raw.events] == DATA


@pytest.mark.parametrize(("head", "reason"), [
    (b"HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\nhello", "Content-Length"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\nhello", "Content-Length"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", "chunk size"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n", "chunk size"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\nzz\r\n" % (len(EVENTS[0]), EVENTS[0]),
     "chunk size"),
    (b"NOT-HTTP garbage\r\n\r\n", "malformed HTTP response"),
])
async def test_a_bad_size_line_fails_that_request_with_a_reason_and_the_run_goes_on(head: bytes, reason: str) -> None:
    errors = LoopErrors()
    pool = ConnectionPool()
    async with RawPeer([[head], [sse_ok(*EVENTS)]]) as peer:
        bad = await fetch(peer.url, pool)
        good = await fetch(peer.url, pool)
    pool.close()
    assert bad.error is not None and bad.error.startswith("malformed HTTP response") and reason in bad.error
    good.decode()
    assert good.error is None and [d for _, d in good.events] == DATA
    assert errors.seen == []  # nothing raised inside the protocol
    assert peer.connections == 2  # the connection that carried the bad response is not reused


@pytest.mark.parametrize("head", [b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n",
                                  b"HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\nConnection: close\r\n\r\n"])
async def test_a_body_that_ends_at_eof_is_complete_and_a_cut_chunked_one_is_not(head: bytes) -> None:
    async with RawPeer([[head + b"".join(EVENTS), CLOSE]]) as peer:
        whole = await fetch(peer.url)
    cut = sse_ok(*EVENTS)[:-12]
    async with RawPeer([[cut, CLOSE]]) as peer:
        truncated = await fetch(peer.url)
    whole.decode()
    assert whole.error is None and [d for _, d in whole.events] == DATA
    assert truncated.error is not None and "before the response was complete" in truncated.error


async def test_stray_bytes_after_a_response_keep_the_connection_out_of_the_pool() -> None:
    pool = ConnectionPool()
    async with RawPeer([[sse_ok(*EVENTS) + b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"], [sse_ok(*EVENTS)]]) as peer:
        first = await fetch(peer.url, pool)
        second = await fetch(peer.url, pool)
    pool.close()
    assert first.error is None and second.error is None and peer.connections == 2


async def test_the_query_string_of_the_url_is_kept() -> None:
    async with RawPeer([[sse_ok(*EVENTS), CLOSE]]) as peer:
        raw = await fetch(peer.url + "/openai?api-version=2024-10&x=1")
    assert raw.error is None
    assert peer.requests[0].startswith(b"POST /openai/v1/completions?api-version=2024-10&x=1 HTTP/1.1\r\n")


def _ipv6_loopback() -> bool:
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback (::1) on this machine")
async def test_host_header_brackets_an_ipv6_literal() -> None:
    async with RawPeer([[sse_ok(*EVENTS), CLOSE]], host="::1") as peer:
        raw = await fetch(peer.url)
    raw.decode()
    assert raw.error is None and [d for _, d in raw.events] == DATA
    assert f"\r\nHost: [::1]:{peer.port}\r\n".encode() in peer.requests[0]


def test_request_target_for_ipv6_default_port_and_query() -> None:
    assert request_target("https://[2001:db8::1]/base/", "/v1/x") == ("2001:db8::1", 443, True, "[2001:db8::1]",
                                                                       "/base/v1/x")
    assert request_target("http://h:81?k=v", "/v1/x")[3:] == ("h:81", "/v1/x?k=v")


async def test_proxies_from_the_environment_are_ignored_by_every_http_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """One policy (bench.netpolicy): the streaming client and the auxiliary httpx calls both go direct."""
    from benchledger.bench.auxhttp import AuxHTTP

    metrics = b"# TYPE x counter\nx_total 1\n"
    plain = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(metrics), metrics)
    async with RawPeer([[b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n", CLOSE]] * 4) as proxy, \
            RawPeer([[sse_ok(*EVENTS), CLOSE], [plain, CLOSE]]) as server:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            monkeypatch.setenv(name, proxy.url)
        for name in ("NO_PROXY", "no_proxy"):
            monkeypatch.delenv(name, raising=False)
        raw = await fetch(server.url)
        text = await AuxHTTP(deadline=5.0, attempts=1).get_ok_text(server.url + "/metrics")
    assert raw.error is None and text == metrics.decode()
    assert proxy.connections == 0 and server.connections == 2
