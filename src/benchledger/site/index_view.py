"""Rows of the index table: one per benchmark experiment, with the values its filters and sort keys need.

Across arms a column shows the range or set of values (e.g. concurrency 2–128, spec "mtp k=3"). The headline
metric is the first of ``HEADLINE_METRICS`` the experiment reports; its best arm is shown, and the speedup
column is the range of derived speedups on that same metric (from the ``comparisons`` view).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from benchledger.schema import METRICS, Benchmark
from benchledger.site.context import SiteData, effect_class
from benchledger.site.evidence import REASON_TEXT, cond_view, format_number
from benchledger.site.physics import NO_CEILING, best_efficiency


@dataclass(frozen=True)
class Shown:
    """A cell: display text, sort key ('' sorts last) and hover title."""

    text: str
    sort: str = ""
    title: str = ""
    css: str = ""
    detail: str = ""


@dataclass(frozen=True)
class IndexRow:
    """One experiment in the index table."""

    id: str
    title: str
    status: str
    model: str
    hardware: Shown
    engine: Shown
    weights: Shown
    spec: Shown
    context: Shown
    concurrency: Shown
    headline: Shown
    speedup: Shown
    efficiency: Shown
    audit: Shown
    filters: dict[str, str]

    @property
    def lead_cells(self) -> list[Shown]:
        """The cells a reader compares first (visible at a 1366 px laptop width): hardware, speedup, efficiency."""
        return [self.hardware, *(_num(s) for s in (self.speedup, self.efficiency))]

    @property
    def cells(self) -> list[Shown]:
        """The cells after the audit column, numeric ones right-aligned."""
        return [_num(self.headline), self.spec, self.engine, self.weights, _num(self.context), _num(self.concurrency)]


def _num(s: Shown) -> Shown:
    return Shown(s.text, s.sort, s.title, f"num {s.css}".strip(), s.detail)


def _range(values: list[float], unknown: list[str]) -> Shown:
    if not values:
        if unknown:
            return Shown("unknown", "", "; ".join(sorted(set(unknown))), "unknown")
        return Shown("not recorded", "", "the record does not state it", "missing")
    lo, hi = min(values), max(values)
    text = _load(lo) if lo == hi else f"{_load(lo)}–{_load(hi)}"
    title = ("some arms: " + "; ".join(sorted(set(unknown)))) if unknown else ""
    if math.isinf(hi):
        title = "offline = all requests at once (concurrency inf)" + (f"; {title}" if title else "")
    return Shown(text, "1e300" if math.isinf(hi) else format_number(hi), title)


def _load(value: float) -> str:
    """A condition value; unbounded concurrency (``inf``: every request submitted at once) reads 'offline'."""
    return "offline" if math.isinf(value) else format_number(value)


def _numeric_condition(data: SiteData, record_id: str, name: str) -> Shown:
    """Range of a numeric condition over the arms, from the index's ``conditions`` view."""
    values: list[float] = []
    unknown: list[str] = []
    for row in data.conditions.get(record_id, []):
        if row["condition"] != name:
            continue
        if row["status"] == "known":
            try:
                values.append(float(row["value"]))
            except (TypeError, ValueError):
                unknown.append(f"not a number: {row['value']}")
        elif row["status"] == "unknown":
            reason = REASON_TEXT.get(str(row["reason"]), str(row["reason"]))
            unknown.append(f"{reason}. {row['note']}" if row["note"] else reason)
    return _range(values, unknown)


def build_index_row(data: SiteData, record: Benchmark) -> IndexRow:
    """Summarise one experiment for the index table."""
    subject = record.subject
    arms = data.arms.get(record.id, [])
    count_view = cond_view(subject.accelerator_count)
    counts = sorted({format_number(a["accelerator_count"]) for a in arms if a["accelerator_count"] is not None})
    hw_text = f"{'/'.join(counts) or '?'} × {subject.accelerator}"
    hardware = Shown(hw_text, hw_text, "" if counts else count_view.title, "" if counts else "unknown")
    versions = sorted({str(a["engine_version"]) for a in arms if a["engine_version"]})
    version_view = cond_view(subject.engine_version)
    version_text = ", ".join(versions)
    short = version_text if len(version_text) <= 22 else version_text[:21] + "…"
    engine = Shown(
        f"{subject.engine} {short}" if versions else f"{subject.engine} (version unknown)",
        subject.engine, version_text if versions else version_view.title, "" if versions else "unknown",
    )
    weights_set = sorted({str(a["weights"]) for a in arms if a["weights"]})
    weights = Shown(", ".join(weights_set) or "unknown", ", ".join(weights_set),
                    "" if weights_set else cond_view(subject.weights).title, "" if weights_set else "unknown")
    specs = sorted({f"{a['spec_method']} k={format_number(a['spec_k']) if a['spec_k'] is not None else '?'}"
                    for a in arms if a["spec_method"]})
    spec = Shown(", ".join(specs) or "none", ", ".join(specs) or "none")
    methods = sorted({str(a["spec_method"]) for a in arms if a["spec_method"]})
    return IndexRow(
        id=record.id, title=record.title, status=record.status, model=subject.model,
        hardware=hardware, engine=engine, weights=weights, spec=spec,
        context=_numeric_condition(data, record.id, "input_tokens"),
        concurrency=_numeric_condition(data, record.id, "batch_or_concurrency"),
        headline=_headline(data, record.id), speedup=_speedup(data, record.id),
        efficiency=_efficiency(data, record.id), audit=_audit(data, record.id),
        filters={
            "model": subject.model,
            "hardware": subject.accelerator,
            "engine": subject.engine,
            "spec": "|".join(methods + (["none"] if any(not a["spec_method"] for a in arms) else [])),
            "format": "|".join(weights_set) if weights_set else "unknown",
        },
    )


def _headline(data: SiteData, record_id: str) -> Shown:
    head = data.headline(record_id)
    if head is None:
        return Shown("no results", "", "this experiment reports no results", "missing")
    metric, stat = head
    best = data.best_result(record_id, metric, stat)
    if best is None:
        return Shown("no results", "", "", "missing")
    label = metric if stat == "value" else f"{metric} {stat}"
    definition = METRICS[metric].definition if metric in METRICS else ""
    arms = data.arms.get(record_id, [])
    arm = next((a for a in arms if a["arm"] == best["arm"]), None)
    where = ""
    if len(arms) > 1 and arm is not None:
        conds = [f"in {format_number(arm['input_tokens'])}" if arm.get("input_tokens") is not None else "",
                 f"conc {_load(float(arm['concurrency']))}" if arm.get("concurrency") is not None else ""]
        where = f" · arm {best['arm']}" + (f" ({', '.join(c for c in conds if c)})" if any(conds) else "")
    return Shown(
        f"{format_number(best['value_canonical'])} {best['unit_canonical']}",
        # grouped by metric and unit, then by value: tok/s, req/s and ms never sort together
        f"{metric} {best['unit_canonical']} {float(best['value_canonical']):020.6f}",
        f"best arm: {best['arm']}. {label}: {definition}",
        detail=label + where,
    )


def _speedup(data: SiteData, record_id: str) -> Shown:
    head = data.headline(record_id)
    comps = data.speedups(record_id, *head) if head else []
    if not comps:
        return Shown("—", "", "no arm has a baseline arm reporting the headline metric", "na")
    values = [float(c["speedup"]) for c in comps]
    lo, hi = min(values), max(values)
    text = f"{lo:.2f}×" if lo == hi else f"{lo:.2f}×–{hi:.2f}×"
    css = effect_class(hi) if effect_class(hi) == effect_class(lo) else "flat"
    return Shown(text, f"{hi:.6f}", f"derived from the comparisons view on {head[0] if head else ''}: "
                 "arm ÷ baseline (latency: baseline ÷ arm); > 1 means the arm is better", css)


def _efficiency(data: SiteData, record_id: str) -> Shown:
    if data.physics_note:
        return Shown("—", "", data.physics_note, "na")
    rows = data.physics.get(record_id, {})
    best = best_efficiency(rows)
    notes = sorted({str(r["efficiency_note"]) for r in rows.values() if r.get("efficiency_note")})
    if best is None and notes:
        return Shown(notes[0], "", "the only bound of these arms is the aggregate bound from compute alone "
                     "(concurrency unknown): it caps the value, a share of it is no efficiency", "na")
    if best is None:
        reasons = sorted({str(r["reason"]) for r in rows.values() if r.get("reason")})
        return Shown("—", "", "no ceiling: " + "; ".join(reasons) if reasons else NO_CEILING, "na")
    arm, row = max(((a, r) for a, r in rows.items() if r.get("efficiency") is not None),
                   key=lambda item: (float(item[1]["efficiency"]), item[0]))
    return Shown(f"{best * 100:.0f} %", f"{best:.6f}",
                 f"best arm {arm}: measured {row['efficiency_metric']} ÷ physical ceiling (roofline, perfmodel)")


def _audit(data: SiteData, record_id: str) -> Shown:
    summary = data.audit(record_id)
    waived = f" ({summary.waived} waived)" if summary.waived else ""
    return Shown(summary.text + waived, str(summary.sort_key), "audit findings of this record", summary.worst)


__all__ = ["IndexRow", "Shown", "build_index_row"]
