"""Number normalisation used by the provenance checks: exact about magnitude, sign and unit."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchledger.audit.numbers import numbers_in, percent_change_interval, value_in_text
from benchledger.schema.units import QUOTE_SPELLINGS, UNITS, conversion


@pytest.mark.parametrize(("value", "unit", "text"), [
    (1234, "tok/s", "we saw 1,234 tok/s"),
    (1578, "ms", "Avg latency: 1.578s"),
    (1.578, "s", "1578 ms"),
    (25.8, "%", "**+25.8%**"),
    (0.949, "fraction", "high acceptance (94.9% / 4.79)"),
    (0.949, "fraction", "acceptance 94.9 %"),
    (94.9, "%", "high acceptance (94.9% / 4.79)"),
    (4.79, "tokens", "high acceptance (94.9% / 4.79)"),
    (50000, None, "### 50K input"),
    (32768, None, "32K context"),
    (3350, "GB/s", "3.35 TB/s of HBM3"),
    (1010, "TOPS", "INT8 - 1.01 POPS Tensor"),
    (128, None, "pp128 = 180.11"),
    (-36.9, "%", "-36.9%"),
    (-36.9, "%", "\u221236.9%"),
    (0.908, "fraction", "code .908"),
    (2128554, "tokens", "2,128,554 tokens"),
    (1.26, None, "1.1-1.26x at 50K"),
    (0, "requests", "0 failed"),
    (1046150, "tok/s", "Tokens per second: 1.04615e+06"),  # LoadGen's exponent notation (MLPerf v6.0 summaries)
    (2.5e-05, None, "rms_norm_eps 2.5E-05"),
])
def test_value_found(value: float, unit: str | None, text: str) -> None:
    assert value_in_text(value, text, unit)


@pytest.mark.parametrize(("value", "unit", "text"), [
    (24.6, "tok/s", "| 24.06 |"),
    (24.0612, "tok/s", "| 24.06 |"),
    (19.13, "tok/s", "19.3 tok/s"),
    (4, None, "k=3"),
    (0.47, "tok/s", "| Vanilla MLX 3B | 47.0 | 1.00x |"),  # 100x off: issue 11
    (4.7, "tok/s", "| 47 |"),
    (470, "tok/s", "| 47.0 |"),
    (-47.0, "tok/s", "| 47.0 |"),
    (47.0, "%", "| -47.0% |"),
    (1e-12, "tok/s", "| 0 |"),
    (1, None, "0\u21924 (25.9 / 43.4)"),
    (1578, "s", "1578 ms"),
    (1.578, "ms", "1.578 s"),
    (24.06, "ms", "24.06 tok/s"),
    (0.949, "fraction", "0.949 %"),
    (10**400, "tokens", "1" + "0" * 400),
    (float("nan"), "tok/s", "nan"),
    (1.04615, "tok/s", "Tokens per second: 1.04615e+06"),  # the mantissa alone is not the number printed
    (1046150, "tok/s", "1.04615 e+06"),
])
def test_value_not_found(value: float, unit: str | None, text: str) -> None:
    assert not value_in_text(value, text, unit)


def test_numbers_in_keeps_order_and_sign() -> None:
    assert numbers_in("1.1-1.26x at 50K, -3 %") == [1.1, 1.26, 50000.0, -3.0]


def test_percent_interval_contains_true_change() -> None:
    lo, hi = percent_change_interval(24.06, 19.13)
    assert lo < 25.8 < hi
    lo, hi = percent_change_interval(63.13, 31.03)
    assert lo <= 103.4 <= hi


# Printed numbers: up to 6 digits before and 3 after the point, never zero.
printed = st.decimals(min_value=Decimal("0.001"), max_value=Decimal("999999"), places=3).map(
    lambda d: d.normalize() if d == d.to_integral() else d)
SAME_DIMENSION = [(a, b) for a in UNITS for b in UNITS
                  if conversion(a, b) is not None and a in QUOTE_SPELLINGS.values() and b in QUOTE_SPELLINGS.values()]
POWERS_OF_TEN = [10.0**p for p in range(-9, 10) if p != 0]


def _text(number: Decimal) -> str:
    return format(number, "f")


@given(printed)
def test_printed_number_matches_itself(number: Decimal) -> None:
    assert value_in_text(float(number), f"| {_text(number)} |", "tok/s")


@given(printed, st.sampled_from(SAME_DIMENSION))
def test_unit_conversion_matches(number: Decimal, units: tuple[str, str]) -> None:
    quote_unit, record_unit = units
    factor = conversion(quote_unit, record_unit)
    assert factor is not None
    assert value_in_text(float(number) * factor, f"{_text(number)} {quote_unit}", record_unit)


@given(printed, st.sampled_from(POWERS_OF_TEN))
def test_no_free_power_of_ten(number: Decimal, scale: float) -> None:
    text = f"| {_text(number)} |"
    assert not value_in_text(float(number) * scale, text, "tok/s")
    assert not value_in_text(float(number) * scale, f"{_text(number)} tok/s", "tok/s")
    assert not value_in_text(float(number) * scale, text, None)


@given(printed)
def test_sign_respected(number: Decimal) -> None:
    text = _text(number)
    assert not value_in_text(-float(number), f"| {text} |", "%")
    assert not value_in_text(float(number), f"| -{text} |", "%")
    assert value_in_text(-float(number), f"| -{text} |", "%")


@given(st.floats(min_value=1e-300, max_value=1e300) | st.floats(min_value=-1e300, max_value=-1e-300))
def test_nonzero_never_matches_zero(value: float) -> None:
    assert not value_in_text(value, "| 0 | 0.0 |", "tok/s")


@given(st.integers(min_value=1000, max_value=10**12))
def test_thousands_separators(value: int) -> None:
    assert value_in_text(value, f"{value:,} tokens", "tokens")


@given(st.integers(min_value=1, max_value=999))
def test_k_suffix(value: int) -> None:
    assert value_in_text(value * 1000, f"{value}K input", "tokens")
    assert value_in_text(value * 1024, f"{value}K context", "tokens")
    assert not value_in_text(value * 100, f"{value}K input", "tokens")
