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
import math
from collections.abc import Sequence
from functools import partial
from itertools import chain, compress
from operator import is_
from typing import Any

import orjson

PLAIN_TYPES: frozenset[type] = frozenset({str, int, float, bool, type(None)})
"""The types of a value orjson writes as the standard encoder does (a float only when finite)."""

_ENCODER = json.JSONEncoder(default=str, ensure_ascii=False, separators=(",", ":"))
"""One encoder for every row (``json.dumps`` with options builds a new one per call)."""
_PLAIN_OR_LIST: frozenset[type] = PLAIN_TYPES | {list}
_IS_FLOAT = partial(is_, float)
_IS_LIST = partial(is_, list)


def encode_rows(rows: Sequence[dict[str, Any]]) -> bytes:
    """The rows as one JSON array of row objects, UTF-8 (what ``standard_rows`` gives, read back by DuckDB)."""
    if _orjson_writes_the_same(rows):
        try:
            return orjson.dumps(rows)
        except orjson.JSONEncodeError:
            pass  # e.g. an integer beyond 64 bits, a lone surrogate
    return standard_rows(rows)


def standard_rows(rows: Sequence[dict[str, Any]]) -> bytes:
    """The rows by the standard encoder (a lone surrogate is refused, as by ``Path.write_text``)."""
    return _ENCODER.encode(rows).encode("utf-8")


def _orjson_writes_the_same(rows: Sequence[dict[str, Any]]) -> bool:
    """Whether every row is a ``dict`` of plain values and lists of them, every float finite (one pass in C over
    the values' types; the floats and lists are then looked at alone)."""
    if not set(map(type, rows)) <= {dict}:
        return False
    values = list(chain.from_iterable(map(dict.values, rows)))
    kinds = set(map(type, values))
    if not _plain(values, kinds, _PLAIN_OR_LIST):
        return False
    if list not in kinds:
        return True
    items = list(chain.from_iterable(compress(values, map(_IS_LIST, map(type, values)))))
    return _plain(items, set(map(type, items)), PLAIN_TYPES)


def _plain(values: list[Any], kinds: set[type], allowed: frozenset[type]) -> bool:
    if not kinds <= allowed:
        return False
    return float not in kinds or all(map(math.isfinite, compress(values, map(_IS_FLOAT, map(type, values)))))


__all__ = ["PLAIN_TYPES", "encode_rows", "standard_rows"]
