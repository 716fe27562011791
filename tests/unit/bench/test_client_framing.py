"""The client's hot-path pieces: chunk framing (end of body spotted without copying) and the later decode."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchledger.bench.client import RawStream, _ChunkFramer


def chunked(*parts: bytes) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"


EVENTS = [b'data: {"a": 1}\n\n', b'data: {"b": 2}\n\ndata: [DONE]\n\n']
BODY = chunked(*EVENTS)


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points) if b > a]


@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_framer_is_done_exactly_at_the_last_chunk(cuts: list[int]) -> None:
    framer = _ChunkFramer()
    pieces = split(BODY, cuts)
    fed = 0
    for piece in pieces:
        framer.feed(piece)
        fed += len(piece)
        # the terminal "0\r\n" line ends the body; nothing before it does
        assert framer.done == (fed >= len(BODY) - 2)


def test_framer_ignores_chunk_data_that_looks_like_a_size_line() -> None:
    framer = _ChunkFramer()
    framer.feed(chunked(b"0\r\n\r\n", b"zz")[:-5])
    assert not framer.done
    framer.feed(b"0\r\n\r\n")
    assert framer.done


@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_decode_stamps_each_event_with_the_piece_that_completed_it(cuts: list[int]) -> None:
    pieces = split(BODY, cuts)
    raw = RawStream(t_start=0.0, status=200, chunked=True, pieces=[(float(i), p) for i, p in enumerate(pieces)])
    raw.decode()
    assert [d for _, d in raw.events] == ['{"a": 1}', '{"b": 2}', "[DONE]"]
    ends = []
    for marker in (b'1}\n\n', b'2}\n\n', b"[DONE]\n\n"):
        pos = BODY.index(marker) + len(marker)
        total = 0
        for i, p in enumerate(pieces):
            total += len(p)
            if total >= pos:
                ends.append(float(i))
                break
    assert [t for t, _ in raw.events] == ends
    raw.decode()  # idempotent
    assert len(raw.events) == 3


def test_decode_of_an_error_body_goes_to_body() -> None:
    raw = RawStream(t_start=0.0, status=500, pieces=[(1.0, b'{"error": '), (2.0, b'"x"}')])
    raw.decode()
    assert raw.body == b'{"error": "x"}' and raw.events == []


@pytest.mark.parametrize("size_line", [b"5;ext=1\r\n", b"5 \r\n"])
def test_framer_accepts_extensions_and_spaces(size_line: bytes) -> None:
    framer = _ChunkFramer()
    framer.feed(size_line + b"hello\r\n0\r\n\r\n")
    assert framer.done
