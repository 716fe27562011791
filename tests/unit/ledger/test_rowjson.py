"""``rowjson.encode_rows`` loads into DuckDB exactly as the standard encoder's text does (``standard_rows``): on
generated rows, on the values where orjson alone would differ (NaN, infinities, integers beyond 64 bits, enums,
dates, subclasses of ``str``) and on lone surrogates (refused by both); and it takes the fast path for plain rows."""

from __future__ import annotations

import datetime as dt
import enum
import math
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchledger.ledger.rowjson import encode_rows, standard_rows

COLUMNS = {"t": "VARCHAR", "x": "DOUBLE", "n": "BIGINT", "xs": "DOUBLE[]", "ts": "VARCHAR[]", "b": "BOOLEAN"}


class Colour(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Tag(str):
    def __str__(self) -> str:
        return "tag:" + self


_DB = duckdb.connect()


def loaded(blob: bytes, tmp: Path) -> list[tuple[Any, ...]] | tuple[str, str]:
    """The rows as DuckDB reads them (floats by their bits, so NaN equals NaN), or the error it gives."""
    path = tmp / "rows.json"
    path.write_bytes(blob)
    spec = "{" + ", ".join(f"'{c}': '{t}'" for c, t in COLUMNS.items()) + "}"
    try:
        rows = _DB.execute(f"SELECT * FROM read_json(?, format='array', columns={spec})", [str(path)]).fetchall()
    except duckdb.Error as exc:
        return type(exc).__name__, str(exc)
    return [tuple(_bits(v) for v in row) for row in rows]


def _bits(value: Any) -> Any:
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, list):
        return [_bits(v) for v in value]
    return value


def as_loaded(rows: list[dict[str, Any]], tmp: Path) -> tuple[Any, Any]:
    """What DuckDB loads from ``encode_rows``'s text, and from the standard encoder's."""
    return loaded(encode_rows(rows), tmp), loaded(standard_rows(rows), tmp)


FLOATS = st.floats(allow_nan=True, allow_infinity=True)
TEXT = st.text(st.characters(blacklist_categories=["Cs"]), max_size=8)
ROWS = st.lists(st.fixed_dictionaries({}, optional={
    "t": st.one_of(TEXT, st.none()), "x": st.one_of(FLOATS, st.integers(-2**53, 2**53), st.none()),
    "n": st.one_of(st.integers(-2**63, 2**63 - 1), st.none()), "xs": st.lists(st.one_of(FLOATS, st.none()), max_size=3),
    "ts": st.lists(TEXT, max_size=3), "b": st.one_of(st.booleans(), st.none()),
}), max_size=6)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS)
def test_generated_rows_load_as_the_standard_encoders(rows: list[dict[str, Any]], tmp_path: Path) -> None:
    fast, standard = as_loaded(rows, tmp_path)
    assert fast == standard


@pytest.mark.parametrize("row", [
    {"x": math.nan}, {"x": math.inf}, {"x": -math.inf}, {"xs": [1.0, math.nan]}, {"xs": [None, -math.inf]},
    {"x": 1e-05}, {"x": 5e-324}, {"x": 1.7976931348623157e308}, {"x": 1e22}, {"x": -0.0}, {"x": 0.1 + 0.2},
    {"n": 2**64}, {"x": 10**400 // 10**100}, {"t": Colour.RED}, {"n": Level.HIGH}, {"t": dt.date(2026, 12, 1)},
    {"t": Tag("a")}, {"t": 'quote " backslash \\ tab \t nul \x00 line \u2028 é 𝄞'}, {"ts": ["a", Tag("b")]},
    {"b": True, "n": True}, {"t": "null", "x": math.nan}, {"t": "null", "x": 2.5}, {"null": None, "x": 1.0},
    {"xs": [[1.0]]}, {"t": ("a", "b")},
])
def test_the_values_orjson_alone_would_write_otherwise_load_as_the_standard_encoders(row: dict[str, Any],
                                                                                     tmp_path: Path) -> None:
    fast, standard = as_loaded([{"t": "plain", "x": 1.5}, row], tmp_path)
    assert fast == standard


def test_plain_rows_take_orjson_and_nan_does_not(tmp_path: Path) -> None:
    plain = [{"t": "a", "x": 1e-05, "xs": [0.5], "n": 3, "b": False, "ts": []}]
    assert encode_rows(plain) == orjson.dumps(plain)  # the fast path is the one taken
    with_nan = [*plain, {"x": math.nan}]
    assert orjson.dumps(with_nan) != encode_rows(with_nan) == standard_rows(with_nan)
    assert loaded(orjson.dumps(with_nan), tmp_path)[1][1] is None  # type: ignore[index]  # orjson alone: NULL
    assert loaded(encode_rows(with_nan), tmp_path)[1][1] == ("float", math.nan.hex())  # type: ignore[index]


def test_a_text_with_null_in_it_takes_the_standard_encoder_when_there_are_floats() -> None:
    rows = [{"t": "not null", "x": 1.5}]
    assert encode_rows(rows) == standard_rows(rows)
    assert encode_rows([{"t": "not null"}]) == orjson.dumps([{"t": "not null"}])  # no float: no doubt


def test_a_lone_surrogate_is_refused_as_before() -> None:
    rows = [{"t": "bad \ud800"}]
    with pytest.raises(UnicodeEncodeError):
        standard_rows(rows)
    with pytest.raises(UnicodeEncodeError):
        encode_rows(rows)
