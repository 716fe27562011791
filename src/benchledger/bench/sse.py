"""Incremental Server-Sent Events parser (the subset OpenAI-compatible servers use).

Bytes arrive in arbitrary pieces; ``SSEParser.feed`` returns the complete events they finish. An event ends at a
blank line; ``data:`` lines are joined with ``\\n``; comments (``:`` lines, e.g. keep-alive pings) are ignored;
``\\r\\n``, ``\\r`` and ``\\n`` line ends are all accepted. The parser never interprets the payload: JSON decoding
happens after the stream ends, off the hot path.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One complete event: its ``event:`` name (default ``message``) and joined ``data`` payload."""

    data: str
    event: str = "message"


class SSEParser:
    """Feed bytes, get complete events. Keeps the unfinished tail between calls."""

    __slots__ = ("_buf", "_data", "_event")

    def __init__(self) -> None:
        self._buf = b""
        self._data: list[str] = []
        self._event = "message"

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Consume ``chunk``; return the events it completes (possibly none)."""
        buf = self._buf + chunk
        if b"\r" in buf:
            # Normalise CRLF / CR line ends; a trailing lone CR may be the first half of a CRLF.
            keep_cr = buf.endswith(b"\r")
            if keep_cr:
                buf = buf[:-1]
            buf = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            if keep_cr:
                buf += b"\r"
        events: list[SSEEvent] = []
        start = 0
        while True:
            nl = buf.find(b"\n", start)
            if nl < 0:
                break
            line = buf[start:nl]
            start = nl + 1
            if not line:
                if self._data:
                    events.append(SSEEvent(data="\n".join(self._data), event=self._event))
                self._data = []
                self._event = "message"
                continue
            self._line(line)
        self._buf = buf[start:]
        return events

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
        events = self.feed(b"\n\n") if self._buf.strip() or self._data else []
        self._buf = b""
        return events

    @property
    def pending(self) -> bytes:
        """Bytes received but not yet part of a complete line."""
        return self._buf


__all__ = ["SSEEvent", "SSEParser"]
