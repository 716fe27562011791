"""Views of reference records (accelerators, models, formats, engines) and the ledger-wide list pages.

An engine page puts its claimed features next to what benchmark records measured with speculative decoding
on it — how many arm comparisons helped, hurt or made no clear difference. Support is not benefit.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from benchledger.schema import Benchmark, ComputePeak, Engine, Quantity, Unknown
from benchledger.site.context import NEUTRAL_BAND, SiteData, effect_class, stat_rank
from benchledger.site.evidence import REASON_TEXT, Evidence, format_number, format_scalar

SKIP_FIELDS = frozenset({"id", "kind", "title", "sources", "status", "history", "body", "claims"})
EFFECT_METRICS: tuple[str, ...] = ("output_throughput", "per_stream_throughput", "tpot")
EFFECT_RULE = (f"speedup > {1 + NEUTRAL_BAND:g} = helped, < {1 - NEUTRAL_BAND:g} = hurt, else no clear change; "
               "metric: output_throughput, else per_stream_throughput, else tpot")


@dataclass(frozen=True)
class Fact:
    """One field of a reference record, ready to show."""

    name: str
    text: str
    css: str = ""
    title: str = ""
    evidence: int = 0


def reference_facts(record: BaseModel, evidence: list[Evidence]) -> list[Fact]:
    """Every field except the shared ones, with quantities linked to their evidence."""
    by_path = {e.path: e.number for e in evidence}
    facts: list[Fact] = []
    for name in type(record).model_fields:
        if name in SKIP_FIELDS:
            continue
        value = getattr(record, name)
        label = name.replace("_", " ")
        if value is None or value == []:
            continue
        if isinstance(value, Quantity):
            facts.append(Fact(label, f"{format_scalar(value.value)} {value.unit}",
                              title=f"{value.provenance}{', ' + value.basis if value.basis else ''}",
                              evidence=by_path.get(name, 0)))
        elif isinstance(value, Unknown):
            reason = REASON_TEXT.get(value.unknown, value.unknown)
            facts.append(Fact(label, reason + (f" ({value.note})" if value.note else ""), css="unknown"))
        elif isinstance(value, list) and value and isinstance(value[0], ComputePeak):
            for index, peak in enumerate(value):
                facts.append(Fact(
                    f"{peak.precision} peak ({'dense' if peak.dense else 'sparse'})",
                    f"{format_scalar(peak.tflops.value)} {peak.tflops.unit}",
                    title=peak.tflops.basis or peak.tflops.provenance,
                    evidence=by_path.get(f"{name}[{index}].tflops", 0),
                ))
        elif isinstance(value, dict):
            for key in sorted(value):
                q = value[key]
                text = f"{format_scalar(q.value)} {q.unit}" if isinstance(q, Quantity) else format_scalar(q)
                facts.append(Fact(f"{label}: {key}", text, evidence=by_path.get(f"{name}.{key}", 0)))
        elif isinstance(value, list):
            facts.append(Fact(label, ", ".join(format_scalar(v) for v in value)))
        else:
            facts.append(Fact(label, format_scalar(value)))
    return facts


@dataclass
class EngineEffects:
    """Measured effects of speculative decoding on one engine."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    help: int = 0
    hurt: int = 0
    flat: int = 0


def engine_effects(data: SiteData, engine: Engine, benchmarks: list[Benchmark]) -> EngineEffects:
    """Every spec arm comparison on this engine, one metric per arm (the first of ``EFFECT_METRICS``)."""
    effects = EngineEffects()
    for record in benchmarks:
        arms = {a["arm"]: a for a in data.arms.get(record.id, [])}
        comps_by_arm: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for c in data.comparisons.get(record.id, []):
            comps_by_arm[c["arm"]].append(c)
        for arm_name, comps in comps_by_arm.items():
            arm = arms.get(arm_name)
            if arm is None or not arm["spec_method"] or arm["engine"] != engine.id:
                continue
            chosen = next((sorted((c for c in comps if c["metric"] == m), key=lambda c: stat_rank(c["stat"]))
                           for m in EFFECT_METRICS if any(c["metric"] == m for c in comps)), [])
            if not chosen:
                continue
            comp = chosen[0]
            css = effect_class(comp["speedup"])
            setattr(effects, css, getattr(effects, css) + 1)
            effects.rows.append({
                "record_id": record.id, "arm": arm_name,
                "spec": f"{arm['spec_method']} k={format_number(arm['spec_k'])}",
                "hardware": f"{format_number(arm['accelerator_count'])} × {arm['accelerator']}",
                "concurrency": format_number(arm["concurrency"]), "input_tokens": format_number(arm["input_tokens"]),
                "metric": comp["metric"] + ("" if comp["stat"] == "value" else f" ({comp['stat']})"),
                "speedup": f"{comp['speedup']:.3f}×", "sort": f"{comp['speedup']:.6f}", "css": css,
            })
    return effects


def uses(benchmarks: list[Benchmark]) -> dict[str, list[str]]:
    """Reference id → ids of the benchmarks that use it (model, engine, accelerator, formats, interconnects)."""
    used: dict[str, set[str]] = defaultdict(set)
    for b in benchmarks:
        s = b.subject
        for ref in (s.model, s.engine, s.accelerator, *s.accelerator_alternates, *s.interconnects):
            used[ref].add(b.id)
        for arm in b.arms:
            for part in (s, arm.subject):
                for cond in (getattr(part, "weights", None), getattr(part, "kv_cache", None)):
                    value = cond if isinstance(cond, str) else getattr(cond, "value", None)
                    if isinstance(value, str):
                        used[value].add(b.id)
    return {k: sorted(v) for k, v in used.items()}


__all__ = ["EFFECT_RULE", "EngineEffects", "Fact", "engine_effects", "reference_facts", "uses"]
