"""SSE parser: events are the same however the bytes are split."""

from __future__ import annotations

import time

from hypothesis import given
from hypothesis import strategies as st

from benchledger.bench.sse import SSEEvent, SSEParser

STREAM = (
    b": ping\n\n"
    b"data: {\"a\": 1}\n\n"
    b"event: note\r\ndata: line one\r\ndata: line two\r\n\r\n"
    b"data:no-space\r\r"
    b"data: [DONE]\n\n"
)
EXPECTED = [
    SSEEvent('{"a": 1}'),
    SSEEvent("line one\nline two", event="note"),
    SSEEvent("no-space"),
    SSEEvent("[DONE]"),
]


def feed_all(pieces: list[bytes]) -> list[SSEEvent]:
    parser = SSEParser()
    out: list[SSEEvent] = []
    for piece in pieces:
        out.extend(parser.feed(piece))
    out.extend(parser.close())
    return out


def test_whole_stream() -> None:
    assert feed_all([STREAM]) == EXPECTED


def test_byte_by_byte() -> None:
    assert feed_all([STREAM[i : i + 1] for i in range(len(STREAM))]) == EXPECTED


@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_any_split(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    pieces = [STREAM[a:b] for a, b in zip([0, *points], [*points, len(STREAM)], strict=True)]
    assert feed_all(pieces) == EXPECTED


LF_STREAM = (b"data: one\n\n: ping\n\nevent: note\ndata: a\ndata: b\n\n\n\ndata:x\n\ndata: [DONE]\n\n")
LF_EXPECTED = [SSEEvent("one"), SSEEvent("a\nb", event="note"), SSEEvent("x"), SSEEvent("[DONE]")]


@given(st.lists(st.integers(min_value=0, max_value=len(LF_STREAM)), max_size=12))
def test_any_split_of_a_stream_with_lf_line_ends(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    pieces = [LF_STREAM[a:b] for a, b in zip([0, *points], [*points, len(LF_STREAM)], strict=True)]
    assert feed_all(pieces) == LF_EXPECTED


def test_unterminated_final_event_is_returned_on_close() -> None:
    parser = SSEParser()
    assert parser.feed(b"data: tail") == []
    assert parser.pending == b"data: tail"
    assert parser.close() == [SSEEvent("tail")]


def test_comment_only_stream_has_no_events() -> None:
    assert feed_all([b": keep-alive\n\n: again\n\n"]) == []


def _cpu_to_parse(event: bytes, piece: int) -> float:
    """CPU seconds to parse ``event`` fed in ``piece``-byte pieces (best of 3)."""
    pieces = [event[i : i + piece] for i in range(0, len(event), piece)]
    best = float("inf")
    for _ in range(3):
        parser = SSEParser()
        start = time.process_time()
        out = [e for p in pieces for e in parser.feed(p)]
        best = min(best, time.process_time() - start)
        assert len(out) == 1 and len(out[0].data) == len(event) - 8
    return best


def test_one_50_mb_event_in_small_pieces_costs_linear_time() -> None:
    """The same 50 MB event in twice as many pieces costs about the same; re-copying per piece would double it.

    Linear: every byte is copied a fixed number of times whatever the split. Quadratic (a copy of the growing
    buffer per piece): cost ∝ size² / piece size, so halving the piece size doubles it.
    """
    event = b"data: " + b"x" * 50_000_000 + b"\n\n"
    n_pieces, twice = _cpu_to_parse(event, 128 * 1024), _cpu_to_parse(event, 64 * 1024)
    assert twice < 1.5 * max(n_pieces, 1e-3), (n_pieces, twice)
