"""The page of one benchmark experiment: setup, arms side by side, derived speedups, acceptance, evidence.

Built from the schema record (conditions with their quotes and reasons) plus the index rows that
``SiteData`` grouped for it (comparisons, quoted changes, findings, physics). Pure: data in, view objects out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from benchledger.schema import Arm, Benchmark, Condition, Quantity, arm_conditions
from benchledger.site.context import HEADLINE_METRICS, SiteData, effect_class, stat_rank
from benchledger.site.evidence import (
    CondView,
    Evidence,
    collect_evidence,
    cond_view,
    format_number,
    format_scalar,
)
from benchledger.site.physics import NO_CEILING

CONDITION_LABELS: dict[str, str] = {
    "model": "Model",
    "hardware": "Hardware (count × accelerator)",
    "batch_or_concurrency": "Concurrency / batch / rate",
    "input_tokens": "Input tokens (context)",
    "output_tokens": "Output tokens",
    "engine_version": "Engine version",
    "warmup": "Warmup",
    "weights": "Weight format",
    "parallelism": "Parallelism",
    "spec_method": "Speculative method",
    "spec_k": "Draft tokens k",
    "spec_acceptance": "Acceptance stated",
}
SETUP_FIELDS: tuple[tuple[str, str], ...] = (
    ("subject", "kv_cache"), ("subject", "engine_flags"), ("subject", "image"), ("subject", "host"),
    ("workload", "num_prompts"), ("workload", "max_seconds"), ("workload", "temperature"),
    ("workload", "prefix_caching"), ("workload", "max_model_len"), ("workload", "dataset"),
    ("workload", "ignore_eos"), ("workload", "ttft_limit_ns"), ("workload", "tpot_limit_ns"),
)


@dataclass(frozen=True)
class Cell:
    """One cell of the arms table: text plus optional class, hover title and evidence link."""

    text: str
    css: str = ""
    title: str = ""
    evidence: int = 0
    span: str = ""
    note: str = ""


@dataclass
class ArmRow:
    """One row of the arms table (a condition, a result, a speedup, ...)."""

    label: str
    cells: list[Cell]
    group: str
    help: str = ""

    @property
    def uniform(self) -> bool:
        """True when every arm shows the same thing: drawn as one cell spanning all arms."""
        return len(self.cells) > 1 and all(c == self.cells[0] for c in self.cells[1:])


@dataclass
class RecordView:
    """Everything a benchmark page shows."""

    record: Benchmark
    arm_names: list[str]
    setup: list[tuple[str, CondView]]
    rows: list[ArmRow]
    evidence: list[Evidence]
    findings: list[dict[str, Any]]
    physics_rows: list[ArmRow]
    physics_note: str
    history: list[Any] = field(default_factory=list)


def _evidence_index(evidence: list[Evidence]) -> dict[str, Evidence]:
    return {e.path: e for e in evidence}


def _cond_cell(cond: Condition | None, default_source: str, ev: Evidence | None) -> Cell:
    view = cond_view(cond, default_source)
    span = {"unknown": "unknown", "absent": "missing"}.get(view.status, "")
    return Cell(text=view.text, title=view.title, evidence=ev.number if ev else 0, span=span, note=view.note)


def _quantity_cell(q: Quantity | None, ev: Evidence | None) -> Cell:
    if q is None:
        return Cell(text="—", css="na", title="not stated for this arm")
    title = f"{format_scalar(q.value)} {q.unit}"  # full precision on hover; 4 significant figures shown
    source = q.quote or q.note or (q.formula or "")
    return Cell(text=f"{format_number(q.value)} {q.unit}", css="num", title=f"{title}: {source}" if source else title,
                evidence=ev.number if ev else 0)


def build_record_view(data: SiteData, record: Benchmark) -> RecordView:
    """Assemble the page of one experiment."""
    default_source = record.sources[0] if record.sources else ""
    evidence = collect_evidence(record, default_source)
    by_path = _evidence_index(evidence)
    arm_names = [a.name for a in record.arms]
    setup: list[tuple[str, CondView]] = []
    for part, name in SETUP_FIELDS:
        cond = getattr(getattr(record, part), name)
        if cond is not None:
            setup.append((name.replace("_", " "), cond_view(cond, default_source)))
    rows: list[ArmRow] = []
    rows.append(ArmRow("Baseline arm", [Cell(a.baseline or "— (none)") for a in record.arms], "arm"))
    rows.extend(_spec_rows(record, by_path, default_source))
    rows.extend(_condition_rows(record, by_path, default_source))
    rows.extend(_result_rows(record, by_path))
    rows.extend(_speedup_rows(data, record))
    rows.extend(_acceptance_rows(record, by_path))
    if any(a.note for a in record.arms):
        rows.append(ArmRow("Note", [Cell(a.note or "—") for a in record.arms], "arm"))
    physics = data.physics.get(record.id, {})
    return RecordView(
        record=record, arm_names=arm_names, setup=setup, rows=rows, evidence=evidence,
        findings=data.findings.get(record.id, []), physics_rows=_physics_rows(record, physics),
        physics_note=data.physics_note, history=list(record.history),
    )


def _arm_path(record: Benchmark, arm: Arm) -> str:
    return f"arms[{record.arms.index(arm)}]"


def _spec_rows(record: Benchmark, ev: dict[str, Evidence], src: str) -> list[ArmRow]:
    if not any(a.speculative for a in record.arms):
        return []
    method, k, draft = [], [], []
    for arm in record.arms:
        spec = arm.speculative
        base = _arm_path(record, arm) + ".speculative"
        if spec is None:
            method.append(Cell("none", css="muted"))
            k.append(Cell("—", css="na", title="no speculative decoding in this arm"))
            draft.append(Cell("—", css="na", title="no speculative decoding in this arm"))
            continue
        method.append(Cell(spec.method))
        k.append(_cond_cell(spec.k, src, ev.get(base + ".k")))
        draft.append(_cond_cell(spec.draft, src, ev.get(base + ".draft")) if spec.draft is not None
                     else Cell("—", css="na", title="no separate draft model (e.g. MTP heads of the model)"))
    rows = [ArmRow("Speculative method", method, "spec"), ArmRow("Draft tokens k", k, "spec")]
    if any(a.speculative and a.speculative.draft is not None for a in record.arms):
        rows.append(ArmRow("Draft model", draft, "spec"))
    return rows


_COND_PATHS: dict[str, tuple[str, ...]] = {
    "batch_or_concurrency": ("workload.concurrency", "workload.batch_size", "workload.request_rate"),
    "input_tokens": ("workload.input_tokens",),
    "output_tokens": ("workload.output_tokens",),
    "engine_version": ("subject.engine_version",),
    "warmup": ("workload.warmup",),
    "weights": ("subject.weights",),
    "hardware": ("subject.accelerator_count",),
}


def _condition_rows(record: Benchmark, ev: dict[str, Evidence], src: str) -> list[ArmRow]:
    per_arm = [arm_conditions(record, arm) for arm in record.arms]
    names = [n for n in CONDITION_LABELS if n not in ("spec_method", "spec_k", "spec_acceptance")]
    rows: list[ArmRow] = []
    for name in names:
        cells = []
        for arm, conds in zip(record.arms, per_arm, strict=True):
            found = None
            for suffix in _COND_PATHS.get(name, ()):
                found = ev.get(f"{_arm_path(record, arm)}.{suffix}") or ev.get(suffix)
                if found:
                    break
            cells.append(_cond_cell(conds.get(name), src, found))
        rows.append(ArmRow(CONDITION_LABELS[name], cells, "condition"))
    return rows


def _result_rows(record: Benchmark, ev: dict[str, Evidence]) -> list[ArmRow]:
    keys: list[tuple[str, str, str]] = []
    for arm in record.arms:
        for r in arm.results:
            key = (r.metric, r.stat, r.definition or "")
            if key not in keys:
                keys.append(key)
    rows = []
    for metric, stat, definition in keys:
        cells = []
        for arm in record.arms:
            index = next((i for i, r in enumerate(arm.results)
                          if (r.metric, r.stat, r.definition or "") == (metric, stat, definition)), None)
            if index is None:
                cells.append(Cell("—", css="na", title="this arm does not report it"))
                continue
            q = arm.results[index]
            cells.append(_quantity_cell(q, ev.get(f"{_arm_path(record, arm)}.results[{index}]")))
        label = metric if stat == "value" else f"{metric} ({stat})"
        rows.append(ArmRow(label + (f" [{definition}]" if definition else ""), cells, "result", help=metric))
    return rows


def _speedup_rows(data: SiteData, record: Benchmark) -> list[ArmRow]:
    comps = data.comparisons.get(record.id, [])
    quoted = {(q["arm"], q["metric"], q["stat"]): q for q in data.quoted_changes.get(record.id, [])}
    order = {m: i for i, m in enumerate(HEADLINE_METRICS)}
    keys = sorted(dict.fromkeys((c["metric"], c["stat"]) for c in comps),
                  key=lambda k: (order.get(k[0], len(order)), k[0], stat_rank(k[1])))
    rows = []
    for metric, stat in keys:
        cells = []
        for arm in record.arms:
            c = next((c for c in comps if c["arm"] == arm.name and (c["metric"], c["stat"]) == (metric, stat)), None)
            if c is None:
                cells.append(Cell("—", css="na", title="no baseline to compare with for this metric"))
                continue
            text = f"{c['speedup']:.3f}× (value {c['percent_change']:+.1f} %)"
            q = quoted.get((arm.name, metric, stat))
            title = f"derived: {c['formula']}; arm {format_number(c['arm_value'])} vs baseline " \
                    f"{c['baseline_arm']} {format_number(c['baseline_value'])} {c['unit']}"
            if q is not None:
                text += f" · source says {q['percent']:+g} %"
                title += f"; the source states {q['percent']:+g} %: {q['quote']}"
            cells.append(Cell(text, css="num " + effect_class(c["speedup"]), title=title))
        label = f"speedup on {metric}" + ("" if stat == "value" else f" ({stat})")
        whole = record.measured_by == "benchledger"
        rows.append(ArmRow(label + (" · whole window" if whole else ""), cells, "derived",
                           help="speedup > 1 means the arm beats its baseline" + (
                               "; ratio of the whole measured window (the paired-rounds estimate is below)"
                               if whole else "")))
    return rows + _paired_rows(record)


def _paired_rows(record: Benchmark) -> list[ArmRow]:
    """The speedups ``benchledger bench`` printed: paired rounds with their 95 % CI (``Arm.paired_speedups``)."""
    metrics = sorted({p.metric for a in record.arms for p in a.paired_speedups})
    rows = []
    for metric in metrics:
        cells = []
        for arm in record.arms:
            p = next((p for p in arm.paired_speedups if p.metric == metric), None)
            if p is None:
                cells.append(Cell("—", css="na", title="no paired-rounds estimate for this arm"))
                continue
            ci = f" [{p.ci95[0]:.3f}, {p.ci95[1]:.3f}]" if p.ci95 else " (no CI: < 3 paired rounds)"
            cells.append(Cell(f"{p.estimate:.3f}×{ci}", css="num " + effect_class(p.estimate),
                              title=f"{p.method}; {p.paired_rounds} paired rounds; estimate {p.estimate!r}"))
        rows.append(ArmRow(f"paired speedup on {metric} · 95 % CI", cells, "derived",
                           help="what benchledger bench printed: ratio over the rounds both arms completed, "
                           "bootstrap 95 % CI"))
    return rows


def _acceptance_rows(record: Benchmark, ev: dict[str, Evidence]) -> list[ArmRow]:
    if not any(a.acceptance for a in record.arms):
        return []
    rate, length, positions, definition = [], [], [], []
    for arm in record.arms:
        acc = arm.acceptance
        base = _arm_path(record, arm) + ".acceptance"
        if acc is None:
            none = Cell("—", css="na", title="not stated for this arm")
            rate.append(none)
            length.append(none)
            positions.append(none)
            definition.append(none)
            continue
        rate.append(_quantity_cell(acc.rate, ev.get(base + ".rate")))
        length.append(_quantity_cell(acc.mean_length, ev.get(base + ".mean_length")))
        pos = ", ".join(f"{format_scalar(q.value)}" for q in acc.per_position)
        positions.append(Cell(pos or "—", css="" if pos else "na"))
        definition.append(Cell(acc.definition + (f" ({acc.window})" if acc.window else "")))
    return [
        ArmRow("Acceptance rate", rate, "acceptance", help="accepted ÷ drafted tokens"),
        ArmRow("Mean acceptance length", length, "acceptance", help="1 + accepted ÷ drafts (bonus token included)"),
        ArmRow("Per-position acceptance", positions, "acceptance", help="unconditional survival rate per position"),
        ArmRow("Acceptance definition", definition, "acceptance"),
    ]


PHYSICS_LABELS: tuple[tuple[str, str, str], ...] = (
    ("ceiling_aggregate_tok_s", "Aggregate bound: output tok/s", "tok/s"),
    ("ceiling_per_stream_tok_s", "Per-stream bound: tok/s per stream", "tok/s"),
    ("floor_tpot_ms", "TPOT floor", "ms"),
    ("step_ms", "Minimum step time", "ms"),
    ("efficiency", "Efficiency = measured ÷ ceiling", "%"),
    ("efficiency_metric", "Efficiency measured on", ""),
    ("assumptions", "Assumptions of the bound", ""),
)


BOUND_KEYS: dict[str, str] = {"ceiling_aggregate_tok_s": "bound_output_throughput",
                              "ceiling_per_stream_tok_s": "bound_per_stream_throughput", "floor_tpot_ms": "bound_tpot"}


def _physics_rows(record: Benchmark, physics: dict[str, dict[str, Any]]) -> list[ArmRow]:
    if not physics:
        return []
    rows = []
    for key, label, unit in PHYSICS_LABELS:
        cells = []
        for arm in record.arms:
            row = physics.get(arm.name, {})
            value = row.get(key)
            note = row.get("efficiency_note") or ""
            if key == "efficiency" and value is None and note:
                cells.append(Cell(note, css="na", title=(
                    "the aggregate bound of an arm of unknown concurrency comes from compute alone: it caps the "
                    "measured value (the audit checks it) but a share of it is no efficiency")))
            elif value is None or value == "":
                reason = row.get("reason") or ""
                title = f"no ceiling: {reason}" if reason else (
                    "no result of this arm has a bound" if key.startswith("efficiency") else NO_CEILING)
                cells.append(Cell("—", css="na", title=title))
            elif key == "efficiency":
                cells.append(Cell(f"{float(value) * 100:.1f} %", css="num"))
            elif isinstance(value, float):
                bound = row.get(BOUND_KEYS.get(key, ""), "")
                cells.append(Cell(f"{format_number(value)} {unit}".strip(), css="num", title=str(bound)))
            else:
                cells.append(Cell(str(value)))
        rows.append(ArmRow(label, cells, "physics"))
    reasons = [Cell(physics.get(a.name, {}).get("reason") or "—") for a in record.arms]
    if any(c.text != "—" for c in reasons):
        rows.append(ArmRow("Why no ceiling", reasons, "physics"))
    return rows


__all__ = ["CONDITION_LABELS", "ArmRow", "Cell", "RecordView", "build_record_view"]
