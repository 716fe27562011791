"""The site's plots, as static SVG built from ``SiteData``: speedup vs concurrency and vs context, the
throughput-per-device vs tok/s-per-user Pareto, efficiency vs ceiling and the condition-coverage heat map.

Each plot states its metric definition and units on its axes; each point's hover text names the experiment,
arm and conditions behind it and links to its page. Same data → same bytes (ordering is explicit everywhere).
"""

from __future__ import annotations

import html
import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from benchledger.schema import LOAD_CONDITIONS, METRICS
from benchledger.site.context import SiteData, stat_rank
from benchledger.site.evidence import format_number
from benchledger.site.svg import Axis, GridStyle, Point, Series, status_grid, xy_chart

SPEEDUP_METRICS: tuple[str, ...] = ("output_throughput", "per_stream_throughput", "tpot", "e2e_latency")
RECORD_HREF = "../benchmarks/{id}.html"
LABEL_ROWS_UP_TO = 150
MAX_SERIES = 10
"""Above this many (experiment, other-axis) lines, a speedup plot groups points by method, k and weights."""
COVERAGE_STYLES: tuple[GridStyle, ...] = (
    GridStyle("known", "#1a9850", "known (stated)"),
    GridStyle("source omits", "#fdae61", "unknown: source omits"),
    GridStyle("unchecked", "#d73027", "unknown: unchecked"),
    GridStyle("not recorded", "#4d4d4d", "not recorded (audit error)"),
)


@dataclass(frozen=True)
class Plot:
    """One rendered plot with the heading it is shown under."""

    slug: str
    heading: str
    svg: str
    page: str
    records: tuple[str, ...] = ()
    facets: tuple[tuple[str, str], ...] = ()
    """(filter key, value) pairs the plot page filters on: model, hardware, engine."""
    points: tuple[tuple[str, str], ...] = ()
    """(hover text, link) of every point; a plot of one point is shown as a table row instead."""

    @property
    def desc(self) -> str:
        """The chart's description (metric definitions, units), shown under it on the page."""
        start = self.svg.find("<desc")
        start = self.svg.find(">", start) + 1
        return html.unescape(self.svg[start:self.svg.find("</desc>", start)])


def _slug(*parts: str) -> str:
    return "--".join(parts)


def _ids(hrefs: tuple[str, ...]) -> tuple[str, ...]:
    """Record ids back from the point links (``../benchmarks/<id>.html``)."""
    return tuple(h.rsplit("/", 1)[-1].removesuffix(".html") for h in hrefs)


def _points(series: dict[str, list[Point]]) -> tuple[tuple[str, str], ...]:
    return tuple((p.label, p.href) for _, pts in sorted(series.items()) for p in pts)


def _k(value: Any) -> str:
    return "?" if value is None else format_number(value)


def _arm_index(data: SiteData) -> dict[tuple[str, str], dict[str, Any]]:
    return {(a["record_id"], a["arm"]): a for rows in data.arms.values() for a in rows}


ACCEPTANCE_GROUPS: tuple[tuple[float, str], ...] = ((0.7, "high acceptance"), (0.4, "mid acceptance"),
                                                    (0.0, "low acceptance"))
"""Lower edge of each acceptance-rate group: a speedup line never joins arms of different groups."""


def acceptance_group(arm: dict[str, Any]) -> str:
    """The arm's acceptance group from its rate (else (length − 1) ÷ k); 'acceptance ?' when unknown."""
    rate = arm.get("acceptance_rate")
    if rate is None and arm.get("acceptance_length") is not None and arm.get("spec_k"):
        rate = (float(arm["acceptance_length"]) - 1.0) / float(arm["spec_k"])
    if rate is None:
        return "acceptance ?"
    return next(name for edge, name in ACCEPTANCE_GROUPS if float(rate) >= edge)


def speedup_plots(data: SiteData) -> list[Plot]:
    """Per (model, accelerator, engine): spec speedup vs concurrency and vs input length."""
    arms = _arm_index(data)
    groups: dict[tuple[str, str, str], list[tuple[dict[str, Any], dict[str, Any]]]] = defaultdict(list)
    for record_id in sorted(data.comparisons):
        for comp in data.comparisons[record_id]:
            arm = arms.get((record_id, comp["arm"]))
            if arm is None or not arm["spec_method"]:
                continue
            groups[(arm["model"], arm["accelerator"], arm["engine"])].append((comp, arm))
    plots: list[Plot] = []
    for (model, accel, engine), pairs in sorted(groups.items()):
        metric = next((m for m in SPEEDUP_METRICS if any(c["metric"] == m for c, _ in pairs)), None)
        if metric is None:
            continue
        stat = sorted({c["stat"] for c, _ in pairs if c["metric"] == metric}, key=stat_rank)[0]
        chosen = [(c, a) for c, a in pairs if c["metric"] == metric and c["stat"] == stat]
        label = metric if stat == "value" else f"{metric} ({stat})"
        for x_key, x_name, other_key, other_name in (
            ("concurrency", "concurrency (requests in flight)", "input_tokens", "in"),
            ("input_tokens", "input tokens per request (context)", "concurrency", "conc"),
        ):
            series: dict[str, list[Point]] = defaultdict(list)
            coarse = len({(a["record_id"], a[other_key]) for _, a in chosen}) > MAX_SERIES
            for comp, arm in chosen:
                if arm[x_key] is None or arm[x_key] <= 0:
                    continue
                name = (f"{arm['spec_method']} k={_k(arm['spec_k'])} · {arm['weights'] or 'weights ?'} · "
                        f"{acceptance_group(arm)}")
                if not coarse:
                    name += f" · {other_name} {_k(arm[other_key])} · {arm['record_id']}"
                series[name].append(Point(
                    x=float(arm[x_key]), y=float(comp["speedup"]),
                    label=(f"{arm['record_id']} / {arm['arm']} vs {comp['baseline_arm']}: {comp['speedup']:.3f}× "
                           f"on {label}; {x_key} {_k(arm[x_key])}, {other_key} {_k(arm[other_key])}, "
                           f"weights {arm['weights'] or 'unknown'}, acceptance rate {_k(arm['acceptance_rate'])}"),
                    href=RECORD_HREF.format(id=arm["record_id"]),
                ))
            if not series:
                continue
            title = f"Speculative speedup vs {x_key.replace('_', ' ')}: {model} on {accel}, {engine}"
            slug = _slug("speedup", x_key, model, accel, engine)
            ids = tuple(sorted({p.href for pts in series.values() for p in pts}))
            plots.append(Plot(slug, title, page="speedup", records=_ids(ids),
                              facets=(("model", model), ("hardware", accel), ("engine", engine)),
                              points=_points(series), svg=xy_chart(
                chart_id=slug, title=title,
                desc=(f"Speedup of {label} (arm ÷ its no-speculation baseline arm; for latency, baseline ÷ arm) "
                      f"against {x_name}; log2 x axis; dashed line = 1.0 (no change). "
                      + ("Too many experiments for one line each: points are grouped by method, k, weights and acceptance "
                         "group." if coarse else "One line per experiment, speculative setting, weight format, "
                         "acceptance group (rate ≥ 0.7 high, ≥ 0.4 mid, else low) and other-axis value.")),
                x_axis=Axis(f"{x_name}, log2 scale", log2=True),
                y_axis=Axis(f"speedup on {label} (×, > 1 = speculation helps)", include=(1.0,)),
                series=[Series(n, tuple(p), line=not coarse) for n, p in sorted(series.items())],
                reference_y=1.0, reference_label="1.0× = no change",
            )))
    return plots


def _per_user(rows: list[dict[str, Any]]) -> tuple[float, str] | None:
    """tok/s per user of one arm: stated per-stream throughput, else derived 1000 / TPOT (ms)."""
    stream = sorted((r for r in rows if r["metric"] == "per_stream_throughput"), key=lambda r: stat_rank(r["stat"]))
    if stream:
        return float(stream[0]["value_canonical"]), "per_stream_throughput"
    tpot = sorted((r for r in rows if r["metric"] == "tpot" and r["unit_canonical"] == "ms"
                   and r["value_canonical"] > 0), key=lambda r: stat_rank(r["stat"]))
    if tpot:
        return 1000.0 / float(tpot[0]["value_canonical"]), f"1000 / tpot {tpot[0]['stat']}"
    return None


def pareto_plots(data: SiteData) -> list[Plot]:
    """Per model: output tok/s per device vs tok/s per user, one Pareto front per (hardware, engine, spec)."""
    arms = _arm_index(data)
    by_model: dict[str, dict[str, list[Point]]] = defaultdict(lambda: defaultdict(list))
    for record_id in sorted(data.results):
        per_arm: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in data.results[record_id]:
            per_arm[r["arm"]].append(r)
        for arm_name, rows in sorted(per_arm.items()):
            arm = arms.get((record_id, arm_name))
            out = sorted((r for r in rows if r["metric"] == "output_throughput"), key=lambda r: stat_rank(r["stat"]))
            user = _per_user(rows)
            if arm is None or not out or user is None or not arm["accelerator_count"]:
                continue
            per_device = float(out[0]["value_canonical"]) / float(arm["accelerator_count"])
            spec = f"{arm['spec_method']} k={_k(arm['spec_k'])}" if arm["spec_method"] else "no spec"
            name = f"{_k(arm['accelerator_count'])}× {arm['accelerator']} · {arm['engine']} · {spec}"
            by_model[arm["model"]][name].append(Point(
                x=user[0], y=per_device,
                label=(f"{record_id} / {arm_name}: {per_device:.4g} output tok/s per device, {user[0]:.4g} tok/s per "
                       f"user ({user[1]}); concurrency {_k(arm['concurrency'])}, input {_k(arm['input_tokens'])}, "
                       f"weights {arm['weights'] or 'unknown'}"),
                href=RECORD_HREF.format(id=record_id),
            ))
    plots = []
    for model, series in sorted(by_model.items()):
        slug = _slug("pareto", model)
        title = f"Throughput per device vs speed per user: {model}"
        ids = tuple(sorted({p.href for pts in series.values() for p in pts}))
        plots.append(Plot(slug, title, page="pareto", records=_ids(ids), facets=(("model", model),),
                          points=_points(series), svg=xy_chart(
            chart_id=slug, title=title,
            desc=("y: output_throughput (Σ output tokens ÷ window, output tokens only) ÷ accelerator count. "
                  "x: tok/s per user = per_stream_throughput when stated, else 1000 ÷ TPOT (ms), derived. "
                  "Lines join each series' Pareto front (no other point has both more x and more y)."),
            x_axis=Axis("tok/s per user (per-stream decode rate; or 1000 ÷ TPOT ms)"),
            y_axis=Axis("output tok/s per device (output tokens only)"),
            series=[Series(n, tuple(p), line=False, front=True) for n, p in sorted(series.items())],
        )))
    return plots


def efficiency_plots(data: SiteData) -> list[Plot]:
    """Efficiency vs the physical ceiling per arm against concurrency: one small plot per hardware, one series per
    (engine, weight format, speculation), so no plot shares its colours among dozens of series."""
    if data.physics_note:
        return []
    arms = _arm_index(data)
    by_hw: dict[str, dict[str, list[Point]]] = defaultdict(lambda: defaultdict(list))
    unplotted = 0
    for record_id in sorted(data.physics):
        for arm_name, row in sorted(data.physics[record_id].items()):
            arm = arms.get((record_id, arm_name))
            if arm is None or row.get("efficiency") is None:
                continue
            conc = arm["concurrency"] or arm["batch_size"]
            if not conc or not math.isfinite(float(conc)):
                unplotted += 1
                continue
            spec = f"{arm['spec_method']} k={_k(arm['spec_k'])}" if arm["spec_method"] else "no spec"
            name = f"{arm['engine']} · {arm['weights'] or 'weights ?'} · {spec}"
            by_hw[arm["accelerator"]][name].append(Point(
                x=float(conc), y=float(row["efficiency"]) * 100.0,
                label=(f"{record_id} / {arm_name}: {float(row['efficiency']) * 100:.1f} % of the "
                       f"{row.get('bound_output_throughput') or 'ceiling'} on {row['efficiency_metric']}"),
                href=RECORD_HREF.format(id=record_id),
            ))
    plots = []
    for accel, series in sorted(by_hw.items()):
        slug = _slug("efficiency", accel)
        title = f"Measured throughput as a share of the physical ceiling: {accel}"
        ids = tuple(sorted({p.href for pts in series.values() for p in pts}))
        plots.append(Plot(slug, title, page="efficiency", records=_ids(ids), facets=(("hardware", accel),),
                          points=_points(series), svg=xy_chart(
            chart_id=slug, title=title,
            desc=("y: measured result ÷ the roofline ceiling of the physics model for the same hardware, model, "
                  "format and load (%; n/a arms — aggregate bound from compute alone, concurrency unknown — are "
                  "left out). x: concurrency (batch size when concurrency is not stated), log2. One plot per "
                  f"hardware. {unplotted} arms in the whole ledger with an efficiency but no stated concurrency or "
                  "batch size are not plotted."),
            x_axis=Axis("concurrency (requests in flight), log2 scale", log2=True),
            y_axis=Axis("efficiency = measured ÷ ceiling (%)", low=0.0, include=(100.0,)),
            series=[Series(n, tuple(p), line=False) for n, p in sorted(series.items())],
            reference_y=100.0, reference_label="100 % = the physical ceiling",
        )))
    return plots


def coverage_status(rows: list[dict[str, Any]]) -> str:
    """One record's status for one condition over its arms: the worst arm wins."""
    statuses = {("not recorded" if r["status"] == "absent" else
                 "known" if r["status"] == "known" else
                 "source omits" if r["reason"] == "source_omits" else "unchecked") for r in rows}
    for worst in ("not recorded", "unchecked", "source omits"):
        if worst in statuses:
            return worst
    return "known" if statuses else "not recorded"


def coverage_plot(data: SiteData) -> Plot:
    """Records × the seven load conditions."""
    grid: list[tuple[str, str, list[str]]] = []
    for record in data.benchmarks:
        rows = data.conditions.get(record.id, [])
        statuses = [coverage_status([r for r in rows if r["condition"] == name]) for name in LOAD_CONDITIONS]
        grid.append((record.id, RECORD_HREF.format(id=record.id), statuses))
    labelled = len(grid) <= LABEL_ROWS_UP_TO
    if not labelled:
        grid.sort(key=lambda row: (row[2], row[0]))
    title = "Condition coverage: experiments × the seven load conditions"
    return Plot("coverage", title, page="coverage", svg=status_grid(
        chart_id="coverage", title=title,
        desc=("For each experiment and load condition: known in every arm, unknown because the source omits it, "
              "unknown because nobody checked, or not recorded at all (worst arm shown). "
              + ("" if labelled else "Rows are sorted by pattern; equal neighbours are merged.")),
        columns=[name.replace("_", " ") for name in LOAD_CONDITIONS],
        rows=grid, styles=COVERAGE_STYLES, label_rows=labelled,
    ))


def metric_definitions() -> list[tuple[str, str, str]]:
    """(metric, units, definition) for the plots page legend."""
    return [(m.name, ", ".join(m.units), m.definition) for m in METRICS.values()]


__all__ = [
    "ACCEPTANCE_GROUPS",
    "COVERAGE_STYLES",
    "Plot",
    "acceptance_group",
    "coverage_plot",
    "coverage_status",
    "efficiency_plots",
    "metric_definitions",
    "pareto_plots",
    "speedup_plots",
]
