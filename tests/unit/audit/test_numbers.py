"""Number normalisation used by the provenance checks."""

from __future__ import annotations

import pytest

from benchledger.audit.numbers import numbers_in, percent_change_interval, value_in_text


@pytest.mark.parametrize(("value", "text"), [
    (1234, "we saw 1,234 tok/s"),
    (1578, "Avg latency: 1.578s"),
    (1.578, "1578 ms"),
    (25.8, "**+25.8%**"),
    (0.949, "high acceptance (94.9% / 4.79)"),
    (50000, "### 50K input"),
    (3350, "3.35 TB/s of HBM3"),
    (128, "pp128 = 180.11"),
    (36.9, "-36.9%"),
    (0.908, "code .908"),
    (2128554, "2,128,554 tokens"),
])
def test_value_found(value: float, text: str) -> None:
    assert value_in_text(value, text)


@pytest.mark.parametrize(("value", "text"), [
    (24.6, "| 24.06 |"),
    (24.0612, "| 24.06 |"),
    (19.13, "19.3 tok/s"),
    (4, "k=3"),
])
def test_value_not_found(value: float, text: str) -> None:
    assert not value_in_text(value, text)


def test_numbers_in_keeps_order() -> None:
    assert numbers_in("1.1-1.26x at 50K") == [1.1, 1.26, 50000.0]


def test_percent_interval_contains_true_change() -> None:
    lo, hi = percent_change_interval(24.06, 19.13)
    assert lo < 25.8 < hi
    lo, hi = percent_change_interval(63.13, 31.03)
    assert lo <= 103.4 <= hi
