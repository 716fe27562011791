"""Rows as the JSON text ``read_json`` loads (``index.write_rows``): by orjson where that gives what the standard
encoder gives, else by the standard encoder.

The standard encoder (``json.JSONEncoder(default=str, ensure_ascii=False)``) is the definition; orjson writes the
same JSON for rows of plain values (text, whole numbers, finite floats — in the shortest form that reads back as
the same float, possibly spelt otherwise: ``1e-05`` / ``0.00001`` — booleans, null and lists of those) about
seven times faster. Where orjson would differ, the rows go to the standard encoder: a float that is NaN or
infinite (orjson writes ``null``; DuckDB reads ``NaN`` and ``Infinity``), a value of any other type (an enum,
a date, a subclass of ``str``: what the standard encoder writes through ``str`` or its own rules), and whatever
orjson refuses (an integer beyond 64 bits, a lone surrogate, deep nesting). tests/unit/ledger/test_rowjson.py
loads both into DuckDB and compares.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import chain, compress, repeat
from operator import is_
from typing import Any

import orjson

PLAIN_TYPES: frozenset[type] = frozenset({str, int, float, bool, type(None)})
"""The types of a value orjson writes as the standard encoder does (a float only when finite)."""

_ENCODER = json.JSONEncoder(default=str, ensure_ascii=False, separators=(",", ":"))
"""One encoder for every row (``json.dumps`` with options builds a new one per call)."""
_PLAIN_OR_LIST: frozenset[type] = PLAIN_TYPES | {list}
_NONE = type(None)


def encode_rows(rows: Sequence[dict[str, Any]]) -> bytes:
    """The rows as one JSON array of row objects, UTF-8 (what ``standard_rows`` gives, read back by DuckDB).

    The check costs a pass in C over the values' types (no Python call per value): every row a ``dict``, every
    value of a plain type or a list of them; then, when there are floats, that orjson wrote ``null`` no more
    often than there are Nones — a NaN or an infinity would be one more (``null`` inside a text counts too:
    such rows take the standard encoder, which is only slower)."""
    if not set(map(type, rows)) <= {dict}:
        return standard_rows(rows)
    values = list(chain.from_iterable(map(dict.values, rows)))
    types = list(map(type, values))
    kinds = set(types)
    nones = types.count(_NONE)
    if list in kinds:
        items = list(chain.from_iterable(compress(values, map(is_, types, repeat(list)))))
        item_types = list(map(type, items))
        item_kinds = set(item_types)
        if not item_kinds <= PLAIN_TYPES:
            return standard_rows(rows)
        kinds |= item_kinds
        nones += item_types.count(_NONE)
    if not kinds <= _PLAIN_OR_LIST:
        return standard_rows(rows)
    try:
        blob = orjson.dumps(rows)
    except orjson.JSONEncodeError:  # e.g. an integer beyond 64 bits, a lone surrogate
        return standard_rows(rows)
    if float in kinds and blob.count(b"null") != nones:
        return standard_rows(rows)  # a NaN or an infinity (orjson: null), or "null" inside a text
    return blob


def standard_rows(rows: Sequence[dict[str, Any]]) -> bytes:
    """The rows by the standard encoder (a lone surrogate is refused, as by ``Path.write_text``)."""
    return _ENCODER.encode(rows).encode("utf-8")


__all__ = ["PLAIN_TYPES", "encode_rows", "standard_rows"]
