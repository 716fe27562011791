"""Incremental Server-Sent Events parser (the subset OpenAI-compatible servers use).

Bytes arrive in arbitrary pieces; ``SSEParser.feed`` returns the complete events they finish. An event ends at a
blank line; ``data:`` lines are joined with ``\\n``; comments (``:`` lines, e.g. keep-alive pings) are ignored;
``\\r\\n``, ``\\r`` and ``\\n`` line ends are all accepted. The parser never interprets the payload: JSON decoding
happens after the stream ends, off the hot path.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate
from typing import NamedTuple


class SSEEvent(NamedTuple):
    """One complete event: its ``event:`` name (default ``message``) and joined ``data`` payload."""

    data: str
    event: str = "message"


class SSEParser:
    """Feed bytes, get complete events. Keeps the unfinished tail between calls.

    Linear in the bytes fed however they are split: pieces without a line end are only queued, and are
    joined once, when the piece that ends their line arrives (a 50 MB event in 4 KiB pieces is one join,
    not one growing copy per piece).
    """

    __slots__ = ("_data", "_event", "_tail", "_tail_len")

    def __init__(self) -> None:
        self._tail: list[bytes] = []  # bytes after the last complete line, in pieces; never holds a line end
        self._tail_len = 0  # except one trailing CR, which may be the first half of a CRLF
        self._data: list[str] = []
        self._event = "message"

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Consume ``chunk``; return the events it completes (possibly none)."""
        if not chunk:
            return []
        if b"\n" not in chunk and b"\r" not in chunk and not (self._tail and self._tail[-1].endswith(b"\r")):
            self._tail.append(chunk)
            self._tail_len += len(chunk)
            return []
        self._tail.append(chunk)
        buf = b"".join(self._tail)
        self._tail, self._tail_len = [], 0
        if b"\r" in buf:
            # Normalise CRLF / CR line ends; a trailing lone CR may be the first half of a CRLF.
            keep_cr = buf.endswith(b"\r")
            if keep_cr:
                buf = buf[:-1]
            buf = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            if keep_cr:
                buf += b"\r"
        events: list[SSEEvent] = []
        if buf.endswith(b"\n\n"):
            self._blocks(buf, events)  # the common case: whole events, split at C speed
            return events
        start = 0
        while True:
            nl = buf.find(b"\n", start)
            if nl < 0:
                break
            line = buf[start:nl]
            start = nl + 1
            if not line:
                self._dispatch(events)
                continue
            self._line(line)
        if start < len(buf):
            rest = buf[start:]
            self._tail, self._tail_len = [rest], len(rest)
        return events

    def _blocks(self, buf: bytes, events: list[SSEEvent]) -> None:
        """``buf`` (LF line ends) ends with a blank line: each ``\\n\\n``-separated block is lines + a dispatch."""
        for block in buf[:-2].split(b"\n\n"):
            if not self._data and block.startswith(b"data:") and b"\n" not in block:
                value = block[6:] if block.startswith(b"data: ") else block[5:]
                events.append(SSEEvent(data=value.decode("utf-8", errors="replace"), event=self._event))
                self._event = "message"
                continue
            for line in block.split(b"\n"):
                if line:
                    self._line(line)
                else:
                    self._dispatch(events)
            self._dispatch(events)

    def _dispatch(self, events: list[SSEEvent]) -> None:
        if self._data:
            events.append(SSEEvent(data="\n".join(self._data), event=self._event))
        self._data = []
        self._event = "message"

    def _line(self, line: bytes) -> None:
        if line.startswith(b":"):
            return
        field, sep, value = line.partition(b":")
        if sep and value.startswith(b" "):
            value = value[1:]
        text = value.decode("utf-8", errors="replace")
        if field == b"data":
            self._data.append(text)
        elif field == b"event":
            self._event = text

    def close(self) -> list[SSEEvent]:
        """End of stream: an unterminated final event is still returned (servers that omit the blank line)."""
        events = self.feed(b"\n\n") if self._tail_len or self._data else []
        self._tail, self._tail_len = [], 0
        return events

    @property
    def pending(self) -> bytes:
        """Bytes received but not yet part of a complete line."""
        return b"".join(self._tail)


def simple_events(pieces: Sequence[tuple[float, bytes]]) -> list[tuple[float, bytes]] | None:
    """The ``data`` payloads (undecoded) of a whole body in the common shape, each with the stamp of the piece
    that brought its blank line; None when the body is not in that shape (then use ``SSEParser``).

    The shape is what vLLM, SGLang, llama.cpp and TGI send: LF line ends only, every event exactly one
    ``data:`` line, events separated by exactly one blank line, the body ending with one. For such a body the
    payloads and stamps are exactly those of ``SSEParser`` fed piece by piece (``tests/unit/bench/
    test_parse_equivalence.py``), at the cost of one join and one split instead of a parser call per piece.
    """
    if not pieces:
        return None
    body = pieces[0][1] if len(pieces) == 1 else b"".join([p for _, p in pieces])
    if not body.endswith(b"\n\n") or b"\r" in body:
        return None
    if body.startswith(b"data: "):  # the usual spelling: one split gives the payloads
        payloads = body[6:-2].split(b"\n\ndata: ")
        if body.count(b"\n") != 2 * len(payloads):  # another line end: several lines, an event without "data: "
            return _loose_events(pieces, body)
        lengths = [len(data) + 8 for data in payloads]
    else:
        return _loose_events(pieces, body)
    return _stamped(pieces, payloads, lengths)


def _loose_events(pieces: Sequence[tuple[float, bytes]], body: bytes) -> list[tuple[float, bytes]] | None:
    """``simple_events`` for a body whose events are single ``data:`` lines, with or without the space."""
    blocks = body[:-2].split(b"\n\n")
    if body.count(b"\n") != 2 * len(blocks):  # a line end inside a block: several lines, or an extra blank line
        return None
    if not body.startswith(b"data:") or body.count(b"\n\ndata:") != len(blocks) - 1:
        return None
    payloads = [block[6:] if block.startswith(b"data: ") else block[5:] for block in blocks]
    return _stamped(pieces, payloads, [len(block) + 2 for block in blocks])


def _stamped(pieces: Sequence[tuple[float, bytes]], payloads: list[bytes],
             lengths: list[int]) -> list[tuple[float, bytes]]:
    """Each payload with the stamp of the piece holding the last byte of its event (``lengths``: event sizes)."""
    if len(pieces) == len(payloads) and all([len(p) == n for (_, p), n in zip(pieces, lengths, strict=True)]):
        return [(t, data) for (t, _), data in zip(pieces, payloads, strict=True)]  # one event per piece, the usual
    piece_ends = list(accumulate([len(p) for _, p in pieces]))
    return [(pieces[bisect_left(piece_ends, end)][0], data)
            for end, data in zip(accumulate(lengths), payloads, strict=True)]

__all__ = ["SSEEvent", "SSEParser", "simple_events"]
