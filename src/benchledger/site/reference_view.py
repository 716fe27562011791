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
from benchledger.schema.metrics import OUTCOME_BAND
from benchledger.site.context import SiteData
from benchledger.site.evidence import REASON_TEXT, Evidence, format_number, format_scalar

SKIP_FIELDS = frozenset({"id", "kind", "title", "sources", "status", "history", "body", "claims"})
EFFECT_RULE = (f"the index's spec_outcomes view: benefit when the arm is more than {100 * OUTCOME_BAND:g} % better "
               f"than its baseline on a speed metric, harm when more than {100 * OUTCOME_BAND:g} % worse, else no "
               "clear change; an arm counts once per outcome")


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


OUTCOME_CSS: dict[str, str] = {"benefit": "help", "harm": "hurt", "no clear change": "flat"}


@dataclass
class EngineEffects:
    """Measured effects of speculative decoding on one engine (index views ``spec_outcomes``, ``engine_evidence``)."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    help: int = 0
    hurt: int = 0
    flat: int = 0


def engine_effects(data: SiteData, engine: Engine) -> EngineEffects:
    """Every speculative arm's outcome on this engine, one row per speed metric, and the per-arm counts."""
    counts = data.engine_evidence.get(engine.id, {})
    effects = EngineEffects(help=int(counts.get("arms_with_benefit") or 0), hurt=int(counts.get("arms_with_harm") or 0),
                            flat=int(counts.get("arms_unchanged") or 0))
    for row in data.spec_outcomes.get(engine.id, []):
        effects.rows.append({
            "record_id": row["record_id"], "arm": row["arm"],
            "spec": f"{row['spec_method']} k={format_number(row['spec_k'])}",
            "hardware": f"{format_number(row['accelerator_count'])} × {row['accelerator']}",
            "concurrency": format_number(row["concurrency"]), "input_tokens": format_number(row["input_tokens"]),
            "metric": row["metric"] + ("" if row["stat"] == "value" else f" ({row['stat']})"),
            "speedup": f"{row['speedup']:.3f}×", "sort": f"{row['speedup']:.6f}",
            "css": OUTCOME_CSS.get(str(row["outcome"]), "flat"), "outcome": row["outcome"],
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
