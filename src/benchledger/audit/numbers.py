"""Number matching for quotes: find a value in verbatim text, exact about magnitude and sign.

``1,234`` = 1234; ``50K`` = 50000 (or 51200: K as 1024); ``+25.8%`` = 25.8 %; ``1.04615e+06`` = 1046150
(exponent notation, as MLPerf LoadGen prints values of a million and more). A number rescales only when
units say so: the unit printed right after it in the quote and the record's unit share a dimension
(``schema/units.py``): ``1.578 s`` matches 1578 ``ms``, ``3.35 TB/s`` matches 3350 ``GB/s``, ``94.9%``
matches 0.949 as a ``fraction``. Never a free power of ten: 0.47 does not match 47.0, a tiny value does not
match ``0``, and -47.0 does not match 47.0. A value more precise than the quote does not match (it would be
a number the source never printed).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from benchledger.schema.units import QUOTE_SPELLINGS, conversion

_UNIT_ALTERNATION = "|".join(re.escape(s) for s in sorted(QUOTE_SPELLINGS, key=len, reverse=True))
_NUMBER = re.compile(
    r"(?:(?<![\w.)\]])(?P<sign>[-+\u2212]))?(?<![\d.])"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?P<exp>[eE][-+]?\d{1,3}(?![\w.]))?"
    r"(?P<suffix>[kKM](?![A-Za-z]))?"
    rf"(?:\s?(?P<unit>{_UNIT_ALTERNATION})(?![A-Za-z/]))?"
)
_SUFFIX: dict[str, tuple[float, ...]] = {"k": (1e3, 1024.0), "K": (1e3, 1024.0), "M": (1e6, 2.0**20)}
_RELATIVE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class WrittenNumber:
    """A number as printed: its signed value, the K/M multipliers it may carry, and the unit printed after it."""

    value: float
    multipliers: tuple[float, ...]
    unit: str | None


@lru_cache(maxsize=65536)
def written_numbers(text: str) -> tuple[WrittenNumber, ...]:
    """Every number printed in the text, in order (separators removed; sign, suffix and unit kept)."""
    found: list[WrittenNumber] = []
    for match in _NUMBER.finditer(text):
        value = float(match.group("num").replace(",", "") + (match.group("exp") or ""))
        if match.group("sign") in ("-", "\u2212"):
            value = -value
        suffix = match.group("suffix")
        unit = match.group("unit")
        found.append(WrittenNumber(value, _SUFFIX[suffix] if suffix else (1.0,),
                                   QUOTE_SPELLINGS[unit] if unit else None))
    return tuple(found)


def numbers_in(text: str) -> list[float]:
    """Every number written in the text (signed; separators and K/M = 1000/10⁶ applied)."""
    return [n.value * n.multipliers[0] for n in written_numbers(text)]


def value_in_text(value: float, text: str, unit: str | None = None) -> bool:
    """True when the value, in ``unit``, is printed in the text: equal to a written number after its K/M suffix
    and the conversion from the unit printed after it (when that unit shares the record unit's dimension)."""
    try:
        target = float(value)
    except OverflowError:
        return False
    if not math.isfinite(target):
        return False
    for number in written_numbers(text):
        factor = 1.0
        if unit is not None and number.unit is not None and number.unit != unit:
            converted = conversion(number.unit, unit)
            if converted is None:
                continue
            factor = converted
        for multiplier in number.multipliers:
            if _equal(number.value * multiplier * factor, target):
                return True
    return False


def _equal(a: float, b: float) -> bool:
    return a == b or abs(a - b) <= _RELATIVE_TOLERANCE * max(abs(a), abs(b))


def decimals(value: float) -> int:
    """Decimal places as written (``24.06`` → 2, ``50000`` → 0)."""
    exponent = Decimal(repr(value) if isinstance(value, float) else str(value)).normalize().as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def rounding_interval(value: float) -> tuple[float, float]:
    """The interval of true values that round to ``value`` at its written precision."""
    half = 0.5 * 10.0 ** (-decimals(value))
    return value - half, value + half


def percent_change_interval(arm: float, baseline: float) -> tuple[float, float]:
    """Range of (arm/baseline − 1)·100 over the rounding intervals of both inputs."""
    a_lo, a_hi = rounding_interval(arm)
    b_lo, b_hi = rounding_interval(baseline)
    if b_lo <= 0:
        b_lo = min(abs(baseline), b_hi) or 1e-12
    corners = [(a / b - 1.0) * 100.0 for a in (a_lo, a_hi) for b in (b_lo, b_hi)]
    return min(corners), max(corners)


def normalise_space(text: str) -> str:
    """Collapse every run of whitespace to one space and strip the ends."""
    return " ".join(text.split())


__all__ = [
    "WrittenNumber",
    "decimals",
    "normalise_space",
    "numbers_in",
    "percent_change_interval",
    "rounding_interval",
    "value_in_text",
    "written_numbers",
]
