"""Number matching for quotes: find a value in verbatim text after normalising separators, units and scale.

``1,234`` = 1234; ``50K`` = 50000; ``+25.8%`` = 25.8 (and 0.258 as a fraction); ``1.578 s`` matches 1578 ms;
``3.35 TB/s`` matches 3350 GB/s. A match is exact after scaling by a power of ten — a value more precise than
the quote does not match (it would be a number the source never printed).
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache

_NUMBER = re.compile(
    r"(?<![\d.])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?P<suffix>[kKM](?![A-Za-z]))?"
)
_SUFFIX = {"k": 1e3, "K": 1e3, "M": 1e6}
_SCALES = (1.0, 1e3, 1e-3, 1e2, 1e-2, 1e6, 1e-6, 1e9, 1e-9)


@lru_cache(maxsize=65536)
def _numbers(text: str) -> tuple[float, ...]:
    return tuple(numbers_in(text))


def numbers_in(text: str) -> list[float]:
    """Every number written in the text (absolute values; separators and K/M suffixes applied)."""
    found: list[float] = []
    for match in _NUMBER.finditer(text.replace("\u2212", "-")):
        value = float(match.group("num").replace(",", ""))
        suffix = match.group("suffix")
        found.append(value * _SUFFIX[suffix] if suffix else value)
    return found


def value_in_text(value: float, text: str) -> bool:
    """True when the value (up to sign and a power-of-ten unit scale) is written in the text."""
    target = abs(float(value))
    candidates = _numbers(text)
    for scale in _SCALES:
        scaled = target * scale
        for number in candidates:
            if abs(scaled - number) <= 1e-9 * max(1.0, abs(number)):
                return True
    return False


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


__all__ = ["decimals", "normalise_space", "numbers_in", "percent_change_interval", "rounding_interval", "value_in_text"]
