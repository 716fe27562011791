"""SVG chart helpers: tick ranges cover the data, Pareto fronts, escaping, deterministic output."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from hypothesis import given
from hypothesis import strategies as st

from benchledger.site.svg import (
    Axis,
    GridStyle,
    Point,
    Series,
    log2_ticks,
    nice_ticks,
    pareto_front,
    status_grid,
    tick_label,
    xy_chart,
)

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)
positive = st.floats(min_value=1e-3, max_value=1e7, allow_nan=False, allow_infinity=False)


@given(finite, finite)
def test_nice_ticks_cover_the_range(a: float, b: float) -> None:
    low, high = min(a, b), max(a, b)
    ticks = nice_ticks(low, high)
    assert ticks == sorted(ticks) and len(ticks) >= 2
    slack = 1e-6 * (ticks[1] - ticks[0])  # a millionth of a tick step: invisible on any chart
    assert ticks[0] <= low + slack and ticks[-1] >= high - slack
    assert len(ticks) <= 12


@given(positive, positive)
def test_log2_ticks_cover_the_range(a: float, b: float) -> None:
    low, high = min(a, b), max(a, b)
    ticks = log2_ticks(low, high)
    assert ticks[0] <= low * (1 + 1e-9) and ticks[-1] >= high * (1 - 1e-9)
    assert len(ticks) >= 2 and len(ticks) <= 10


def test_tick_labels_are_compact() -> None:
    assert [tick_label(v) for v in (1024.0, 32000.0, 1_500_000.0, 0.25, 12.0)] == ["1024", "32K", "1.5M", "0.25", "12"]
    assert [tick_label(v, binary=True) for v in (1024.0, 32768.0, 512.0)] == ["1K", "32K", "512"]


def test_pareto_front_keeps_only_undominated_points() -> None:
    pts = [Point(1, 10, "a"), Point(2, 8, "b"), Point(2, 5, "dominated"), Point(4, 3, "c"), Point(3, 2, "dominated2")]
    assert [p.label for p in pareto_front(pts)] == ["a", "b", "c"]


def chart(label: str) -> str:
    return xy_chart(
        chart_id="c1", title=f"T {label}", desc="d", x_axis=Axis("x (tok)", log2=True), y_axis=Axis("y (×)"),
        series=[Series(label, (Point(1, 1.2, label, "../b/x.html"), Point(4, 0.8, label)))],
        reference_y=1.0, reference_label="1.0×",
    )


def test_chart_is_well_formed_escaped_and_deterministic() -> None:
    svg = chart("<script>&\"'")
    root = ET.fromstring(svg)  # well-formed XML despite hostile labels
    ns = "{http://www.w3.org/2000/svg}"
    assert root.get("role") == "img" and root.find(f"{ns}title") is not None and root.find(f"{ns}desc") is not None
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert svg == chart("<script>&\"'")
    assert len(root.findall(f".//{ns}a")) == 1  # only the point with a link is wrapped in <a>


def test_status_grid_merges_equal_neighbours() -> None:
    rows = [(f"r{i}", "", ["known" if i < 6 else "unchecked"]) for i in range(10)]
    styles = [GridStyle("known", "#0f0", "known"), GridStyle("unchecked", "#f00", "unchecked")]
    svg = status_grid(chart_id="g", title="t", desc="d", columns=["warmup"], rows=rows, styles=styles,
                      label_rows=False)
    ET.fromstring(svg)
    assert "warmup: known (6 rows)" in svg and "warmup: unchecked (4 rows)" in svg
