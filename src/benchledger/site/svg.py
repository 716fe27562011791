"""Hand-written SVG charts: scales, axes, point/line series and a status grid. Deterministic text out.

Every number is formatted with a fixed precision and every collection is iterated in a stated order, so the
same input gives the same bytes. Every text node and attribute is XML-escaped: labels carry record strings.
Charts are self-contained ``<svg>`` elements with ``role="img"``, a ``<title>`` and a ``<desc>``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

PALETTE: tuple[str, ...] = (
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#8c564b",
)
"""Okabe–Ito colours (colour-blind safe); series also differ by marker shape."""

MARKERS: tuple[str, ...] = ("circle", "square", "triangle", "diamond")


def esc(text: object) -> str:
    """XML-escape text for element content and attribute values."""
    return escape(str(text), quote=True)


def num(value: float) -> str:
    """A coordinate with two decimals and no negative zero."""
    text = f"{value:.2f}"
    return "0.00" if text == "-0.00" else text


def tick_label(value: float, binary: bool = False) -> str:
    """Compact axis label: 1K, 32K, 1.5M, 0.25, 12. ``binary``: multiples of 1024 as K (32768 → 32K)."""
    av = abs(value)
    if binary and av >= 1024 and value % 1024 == 0:
        return f"{value / 1024:g}K"
    if av >= 1_000_000 and value % 100_000 == 0:
        return f"{value / 1_000_000:g}M"
    if av >= 1000 and value % 100 == 0:
        return f"{value / 1000:g}K"
    return f"{value:.4g}"


@dataclass(frozen=True)
class Point:
    """One plotted point: position, hover text and the page it links to (relative URL, may be empty)."""

    x: float
    y: float
    label: str
    href: str = ""


@dataclass(frozen=True)
class Series:
    """A named set of points; ``line`` joins them in x order, ``front`` draws only the upper-right Pareto front."""

    name: str
    points: tuple[Point, ...]
    line: bool = True
    front: bool = False


@dataclass(frozen=True)
class Axis:
    """An axis: label (with unit), log scale (base 2) or linear, optional forced range."""

    label: str
    log2: bool = False
    low: float | None = None
    high: float | None = None
    include: tuple[float, ...] = field(default=())


@dataclass(frozen=True)
class Scale:
    """Maps data values to pixels along one axis."""

    low: float
    high: float
    pix_low: float
    pix_high: float
    log2: bool

    def __call__(self, value: float) -> float:
        lo, hi, v = self.low, self.high, value
        if self.log2:
            lo, hi, v = math.log2(lo), math.log2(hi), math.log2(max(value, 1e-12))
        frac = 0.5 if hi == lo else (v - lo) / (hi - lo)
        return self.pix_low + frac * (self.pix_high - self.pix_low)


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values (1-2-2.5-5 steps) whose first is ≤ low and whose last is ≥ high."""
    if not high - low > 1e-9 * max(1.0, abs(low), abs(high)):  # one value (or an invisible spread)
        half = 1.0 if abs(low) < 1e-9 else abs(low) * 0.5
        low, high = low - half, high + half
    raw = (high - low) / max(count, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    return [float(f"{i * step:.12g}") for i in range(first, max(last, first + 1) + 1)]


def log2_ticks(low: float, high: float) -> list[float]:
    """Powers of two from ≤ low to ≥ high (at least two), thinned to at most 9 ticks."""
    lo = math.floor(math.log2(low) + 1e-9)
    hi = math.ceil(math.log2(high) - 1e-9)
    if hi <= lo:
        lo, hi = lo - 1, hi + 1
    stride = max(1, math.ceil((hi - lo + 1) / 9))
    exps = list(range(lo, hi + stride, stride))
    return [2.0**e for e in exps]


def _axis_range(axis: Axis, values: Sequence[float]) -> tuple[float, float, list[float]]:
    vals = [v for v in (*values, *axis.include) if math.isfinite(v) and (v > 0 or not axis.log2)]
    low = axis.low if axis.low is not None else (min(vals) if vals else (1.0 if axis.log2 else 0.0))
    high = axis.high if axis.high is not None else (max(vals) if vals else low + 1.0)
    if axis.log2:
        ticks = log2_ticks(low, high)
        return ticks[0], ticks[-1], ticks
    if axis.low is None and low > 0 and low < 0.5 * high:
        low = 0.0
    ticks = nice_ticks(low, high)
    return ticks[0], ticks[-1], ticks


def pareto_front(points: Sequence[Point]) -> list[Point]:
    """Points not dominated on (higher x, higher y), ordered by x."""
    front: list[Point] = []
    best_y = -math.inf
    for p in sorted(points, key=lambda q: (-q.x, -q.y, q.label)):
        if p.y > best_y:
            front.append(p)
            best_y = p.y
    return sorted(front, key=lambda q: (q.x, q.y))


def _marker(shape: str, x: float, y: float, colour: str, inner: str = "") -> str:
    """One marker element; ``inner`` (e.g. a ``<title>``) goes inside it."""
    if shape == "square":
        tag, attrs = "rect", f'x="{num(x - 4)}" y="{num(y - 4)}" width="8" height="8"'
    elif shape == "triangle":
        tag, attrs = "polygon", f'points="{num(x)},{num(y - 5)} {num(x - 5)},{num(y + 4)} {num(x + 5)},{num(y + 4)}"'
    elif shape == "diamond":
        pts = f"{num(x)},{num(y - 5)} {num(x + 5)},{num(y)} {num(x)},{num(y + 5)} {num(x - 5)},{num(y)}"
        tag, attrs = "polygon", f'points="{pts}"'
    else:
        tag, attrs = "circle", f'cx="{num(x)}" cy="{num(y)}" r="4"'
    if inner:
        return f'<{tag} {attrs} fill="{colour}">{inner}</{tag}>'
    return f'<{tag} {attrs} fill="{colour}"/>'


def xy_chart(
    *,
    chart_id: str,
    title: str,
    desc: str,
    x_axis: Axis,
    y_axis: Axis,
    series: Sequence[Series],
    reference_y: float | None = None,
    reference_label: str = "",
    width: int = 640,
    height: int = 380,
) -> str:
    """A scatter/line chart with labelled axes, a legend below the plot and an optional horizontal reference."""
    left, right, top, bottom = 70.0, 20.0, 36.0, 56.0
    legend = [_wrap(s.name, LEGEND_CHARS) for s in series]
    if reference_y is not None and reference_label:
        legend.append(_wrap(reference_label, LEGEND_CHARS))
    total_h = height + 8 + 16 * sum(len(lines) for lines in legend)
    xs = [p.x for s in series for p in s.points]
    ys = [p.y for s in series for p in s.points] + ([reference_y] if reference_y is not None else [])
    x_lo, x_hi, x_ticks = _axis_range(x_axis, xs)
    y_lo, y_hi, y_ticks = _axis_range(y_axis, ys)
    sx = Scale(x_lo, x_hi, left, width - right, x_axis.log2)
    sy = Scale(y_lo, y_hi, height - bottom, top, y_axis.log2)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{esc(chart_id)}" role="img" '
        f'aria-labelledby="{esc(chart_id)}-t {esc(chart_id)}-d" viewBox="0 0 {width} {total_h}" '
        f'width="{width}" height="{total_h}" font-family="sans-serif" font-size="12">',
        f'<title id="{esc(chart_id)}-t">{esc(title)}</title>',
        f'<desc id="{esc(chart_id)}-d">{esc(desc)}</desc>',
        f'<rect x="0" y="0" width="{width}" height="{total_h}" fill="#ffffff"/>',
        f'<text x="{num(width / 2)}" y="20" text-anchor="middle" font-size="14" font-weight="bold">'
        f"{esc(title)}</text>",
    ]
    for t in x_ticks:
        px = sx(t)
        out.append(f'<line x1="{num(px)}" y1="{num(top)}" x2="{num(px)}" y2="{num(height - bottom)}" '
                   'stroke="#dddddd"/>')
        out.append(f'<text x="{num(px)}" y="{num(height - bottom + 19)}" text-anchor="middle">'
                   f"{esc(tick_label(t, binary=x_axis.log2))}</text>")
    for t in y_ticks:
        py = sy(t)
        out.append(f'<line x1="{num(left)}" y1="{num(py)}" x2="{num(width - right)}" y2="{num(py)}" '
                   'stroke="#dddddd"/>')
        out.append(f'<text x="{num(left - 6)}" y="{num(py + 4)}" text-anchor="end">{esc(tick_label(t))}</text>')
    out.append(f'<rect x="{num(left)}" y="{num(top)}" width="{num(width - left - right)}" '
               f'height="{num(height - top - bottom)}" fill="none" stroke="#333333"/>')
    x_label = x_axis.label + (" (K = 1024)" if x_axis.log2 and x_ticks[-1] >= 1024 else "")
    out.append(f'<text x="{num((left + width - right) / 2)}" y="{num(height - bottom + 38)}" '
               f'text-anchor="middle">{esc(x_label)}</text>')
    mid_y = (top + height - bottom) / 2
    out.append(f'<text x="16" y="{num(mid_y)}" text-anchor="middle" transform="rotate(-90 16 {num(mid_y)})">'
               f"{esc(y_axis.label)}</text>")
    if reference_y is not None:
        py = sy(reference_y)
        out.append(f'<line x1="{num(left)}" y1="{num(py)}" x2="{num(width - right)}" y2="{num(py)}" '
                   'stroke="#555555" stroke-dasharray="6 4"/>')
    for index, s in enumerate(series):
        colour = PALETTE[index % len(PALETTE)]
        shape = MARKERS[(index // len(PALETTE) + index) % len(MARKERS)]
        ordered = sorted(s.points, key=lambda p: (p.x, p.y, p.label))
        joined = pareto_front(ordered) if s.front else (ordered if s.line else [])
        if len(joined) > 1:
            path = " ".join(f"{num(sx(p.x))},{num(sy(p.y))}" for p in joined)
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="1.5"/>')
        out.append(f'<g class="series" data-series="{esc(s.name)}">')
        for p in ordered:
            mark = _marker(shape, sx(p.x), sy(p.y), colour, f"<title>{esc(p.label)}</title>")
            out.append(f'<a href="{esc(p.href)}">{mark}</a>' if p.href else mark)
        out.append("</g>")
    ly = height + 8.0
    for index, lines in enumerate(legend):
        out.append(f'<g class="legend-entry" data-series="{esc(" ".join(lines))}">')
        if index < len(series):
            colour = PALETTE[index % len(PALETTE)]
            out.append(_marker(MARKERS[(index // len(PALETTE) + index) % len(MARKERS)], left + 5, ly - 4, colour))
        else:  # the reference line's entry: a dashed sample, never a label on the data
            out.append(f'<line x1="{num(left - 2)}" y1="{num(ly - 4)}" x2="{num(left + 12)}" y2="{num(ly - 4)}" '
                       'stroke="#555555" stroke-dasharray="4 2"/>')
        for line in lines:
            out.append(f'<text x="{num(left + 18)}" y="{num(ly)}">{esc(line)}</text>')
            ly += 16
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


LEGEND_CHARS = 80
"""Legend text per line (12 px sans-serif in the 640 px chart); longer names wrap, never clip."""


def _wrap(text: str, limit: int) -> list[str]:
    """Words of ``text`` in lines of at most ``limit`` characters (a longer word gets a line of its own)."""
    lines: list[str] = []
    for word in text.split(" "):
        if lines and len(lines[-1]) + 1 + len(word) <= limit:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class GridStyle:
    """Fill colour and legend text of one cell status."""

    status: str
    colour: str
    legend: str


def status_grid(
    *,
    chart_id: str,
    title: str,
    desc: str,
    columns: Sequence[str],
    rows: Sequence[tuple[str, str, Sequence[str]]],
    styles: Sequence[GridStyle],
    label_rows: bool,
    width: int = 760,
) -> str:
    """A rows × columns grid of coloured statuses. ``rows`` = (label, href, status per column), drawn in order.

    Consecutive rows with the same status in a column are drawn as one rectangle, so 10,000 rows stay small.
    """
    colour = {s.status: s.colour for s in styles}
    row_h = 14.0 if label_rows else max(1.0, min(14.0, 600.0 / max(len(rows), 1)))
    left = 260.0 if label_rows else 90.0
    top, legend_h = 96.0, 30.0
    col_w = (width - left - 10) / max(len(columns), 1)
    grid_h = row_h * len(rows)
    total_h = top + grid_h + legend_h + 10
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{esc(chart_id)}" role="img" '
        f'aria-labelledby="{esc(chart_id)}-t {esc(chart_id)}-d" viewBox="0 0 {width} {num(total_h)}" '
        f'width="{width}" height="{num(total_h)}" font-family="sans-serif" font-size="11">',
        f'<title id="{esc(chart_id)}-t">{esc(title)}</title>',
        f'<desc id="{esc(chart_id)}-d">{esc(desc)}</desc>',
        f'<rect x="0" y="0" width="{width}" height="{num(total_h)}" fill="#ffffff"/>',
        f'<text x="8" y="18" font-size="14" font-weight="bold">{esc(title)}</text>',
    ]
    for ci, name in enumerate(columns):
        cx = left + col_w * (ci + 0.5)
        out.append(f'<text x="{num(cx)}" y="{num(top - 6)}" transform="rotate(-35 {num(cx)} {num(top - 6)})">'
                   f"{esc(name)}</text>")
    for ci in range(len(columns)):
        x = left + col_w * ci
        start = 0
        while start < len(rows):
            status = rows[start][2][ci]
            end = start
            while end + 1 < len(rows) and rows[end + 1][2][ci] == status:
                end += 1
            out.append(f'<rect x="{num(x + 1)}" y="{num(top + start * row_h)}" width="{num(col_w - 2)}" '
                       f'height="{num((end - start + 1) * row_h)}" fill="{colour.get(status, "#999999")}">'
                       f"<title>{esc(columns[ci])}: {esc(status)} ({end - start + 1} rows)</title></rect>")
            start = end + 1
    if label_rows:
        for ri, (label, href, _) in enumerate(rows):
            y = top + ri * row_h + row_h - 3
            text = f'<text x="{num(left - 6)}" y="{num(y)}" text-anchor="end">{esc(_clip(label, 40))}</text>'
            out.append(f'<a href="{esc(href)}">{text}</a>' if href else text)
    else:
        out.append(f'<text x="{num(left - 6)}" y="{num(top + 12)}" text-anchor="end">{len(rows)} records</text>')
    ly = top + grid_h + 20
    for si, style in enumerate(styles):
        lx = 8 + si * (width - 16) / max(len(styles), 1)
        out.append(f'<rect x="{num(lx)}" y="{num(ly - 10)}" width="12" height="12" fill="{style.colour}"/>')
        out.append(f'<text x="{num(lx + 16)}" y="{num(ly)}">{esc(style.legend)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


__all__ = [
    "Axis",
    "GridStyle",
    "Point",
    "Scale",
    "Series",
    "esc",
    "log2_ticks",
    "nice_ticks",
    "pareto_front",
    "status_grid",
    "tick_label",
    "xy_chart",
]
