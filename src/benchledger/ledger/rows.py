"""Flatten records into table rows for the DuckDB index (pure: records in, dicts out)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from benchledger.ledger.store import Ledger
from benchledger.schema import (
    METRICS,
    Accelerator,
    Arm,
    Benchmark,
    Condition,
    Engine,
    Format,
    ModelArch,
    Quantity,
    Source,
    Unknown,
    arm_conditions,
    condition_parts,
    condition_value,
    effective_subject,
    effective_workload,
    to_canonical,
)

Row = dict[str, Any]


def qvalue(q: Quantity | Unknown | None) -> float | None:
    """The numeric value of a reference field, or None when unknown/absent."""
    return float(q.value) if isinstance(q, Quantity) else None


def cvalue(c: Condition | None) -> str | None:
    """A condition's known value as text, or None."""
    value = condition_value(c)
    return None if value is None else str(value)


def cnumber(c: Condition | None) -> float | None:
    """A condition's known value as a number, or None when unknown or not numeric."""
    value = condition_value(c)
    if isinstance(value, bool) or value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None


def record_rows(ledger: Ledger) -> Iterator[Row]:
    for record in ledger:
        yield {
            "id": record.id, "kind": record.kind, "title": record.title, "status": record.status,
            "path": str(ledger.paths[record.id].relative_to(ledger.root)), "sources": list(record.sources),
            "history_entries": len(record.history), "body": record.body,
        }


def source_rows(ledger: Ledger) -> Iterator[Row]:
    for s in ledger.typed("source", Source):
        yield {
            "id": s.id, "title": s.title, "url": str(s.url) if s.url else None, "source_type": s.source_type,
            "publisher": s.publisher, "published": s.published.isoformat() if s.published else None,
            "retrieved": s.retrieved.isoformat(), "sha256": s.sha256, "excerpt": s.body,
        }


def benchmark_rows(ledger: Ledger) -> Iterator[Row]:
    for b in ledger.typed("benchmark", Benchmark):
        subj = b.subject
        yield {
            "id": b.id, "title": b.title, "status": b.status, "measured_by": b.measured_by,
            "model": subj.model, "engine": subj.engine, "engine_version": cvalue(subj.engine_version),
            "accelerator": subj.accelerator, "accelerator_count": cnumber(subj.accelerator_count),
            "weights": cvalue(subj.weights), "kv_cache": cvalue(subj.kv_cache), "scenario": b.workload.scenario,
            "tp": cnumber(subj.parallelism.tp) if subj.parallelism else None, "arms": len(b.arms),
            "sources": list(b.sources), "contests": list(b.contests),
        }


def arm_rows(ledger: Ledger) -> Iterator[Row]:
    for b in ledger.typed("benchmark", Benchmark):
        for arm in b.arms:
            subj, work = effective_subject(b, arm), effective_workload(b, arm)
            acc = arm.acceptance
            spec = arm.speculative
            yield {
                "record_id": b.id, "arm": arm.name, "baseline": arm.baseline,
                "spec_method": spec.method if spec else None, "spec_k": cnumber(spec.k) if spec else None,
                "model": subj.model, "engine": subj.engine, "engine_version": cvalue(subj.engine_version),
                "accelerator": subj.accelerator, "accelerator_count": cnumber(subj.accelerator_count),
                "weights": cvalue(subj.weights), "kv_cache": cvalue(subj.kv_cache),
                "tp": cnumber(subj.parallelism.tp) if subj.parallelism else None,
                "scenario": work.scenario, "input_tokens": cnumber(work.input_tokens),
                "output_tokens": cnumber(work.output_tokens), "concurrency": cnumber(work.concurrency),
                "batch_size": cnumber(work.batch_size), "request_rate": cnumber(work.request_rate),
                "acceptance_rate": _fraction(acc.rate) if acc else None,
                "acceptance_length": qvalue(acc.mean_length) if acc else None,
                "acceptance_per_position": [_fraction(q) for q in acc.per_position] if acc else [],
                "acceptance_definition": acc.definition if acc else None, "note": arm.note,
            }


def _fraction(q: Quantity | None) -> float | None:
    if q is None:
        return None
    return float(q.value) / 100.0 if q.unit == "%" else float(q.value)


def result_rows(ledger: Ledger) -> Iterator[Row]:
    for b in ledger.typed("benchmark", Benchmark):
        default_source = b.sources[0] if b.sources else None
        for arm in b.arms:
            for r in arm.results:
                canon, unit = to_canonical(float(r.value), r.unit)
                yield {
                    "record_id": b.id, "arm": arm.name, "metric": r.metric, "stat": r.stat,
                    "value": float(r.value), "unit": r.unit, "value_canonical": canon, "unit_canonical": unit,
                    "provenance": r.provenance,
                    "source_id": (r.source or default_source) if r.provenance == "quoted" else None,
                    "quote": r.quote, "run": r.run, "sha256": r.sha256, "formula": r.formula,
                    "definition": r.definition, "note": r.note,
                }


def quoted_change_rows(ledger: Ledger) -> Iterator[Row]:
    for b in ledger.typed("benchmark", Benchmark):
        for arm in b.arms:
            for qc in arm.quoted_changes:
                yield {
                    "record_id": b.id, "arm": arm.name, "metric": qc.metric, "stat": qc.stat,
                    "percent": float(qc.percent.value), "quote": qc.percent.quote,
                }


def condition_rows(ledger: Ledger) -> Iterator[Row]:
    for b in ledger.typed("benchmark", Benchmark):
        for arm in b.arms:
            yield from _arm_condition_rows(b, arm)


def _arm_condition_rows(b: Benchmark, arm: Arm) -> Iterator[Row]:
    for name, cond in arm_conditions(b, arm).items():
        status, value, reason, quote, _ = condition_parts(cond)
        note = cond.note if isinstance(cond, Unknown) else None
        yield {
            "record_id": b.id, "arm": arm.name, "condition": name, "status": status,
            "value": None if value is None else str(value), "reason": reason, "note": note, "quote": quote,
        }


def accelerator_rows(ledger: Ledger) -> Iterator[Row]:
    for a in ledger.typed("accelerator", Accelerator):
        peaks = {f"{c.precision}{'' if c.dense else '_sparse'}": float(c.tflops.value) for c in a.compute}
        yield {
            "id": a.id, "name": a.name, "vendor": a.vendor, "architecture": a.architecture,
            "memory_gb": qvalue(a.memory_gb), "memory_bandwidth_gbs": qvalue(a.memory_bandwidth_gbs),
            "tdp_w": qvalue(a.tdp_w), "unified_memory": a.unified_memory, "interconnects": list(a.interconnects),
            "bf16_tflops": peaks.get("bf16"), "fp8_tflops": peaks.get("fp8"), "fp4_tflops": peaks.get("fp4"),
            "int8_tops": peaks.get("int8"),
        }


def model_rows(ledger: Ledger) -> Iterator[Row]:
    for m in ledger.typed("model", ModelArch):
        yield {
            "id": m.id, "name": m.name, "hf_id": m.hf_id, "attention": m.attention,
            "params_total_b": qvalue(m.params_total), "params_active_b": qvalue(m.params_active),
            "hidden_size": qvalue(m.hidden_size), "layers_full_attention": qvalue(m.layers_full_attention),
            "layers_sliding": qvalue(m.layers_sliding), "layers_linear": qvalue(m.layers_linear),
            "num_heads": qvalue(m.num_heads), "num_kv_heads": qvalue(m.num_kv_heads), "head_dim": qvalue(m.head_dim),
            "vocab_size": qvalue(m.vocab_size), "experts_total": qvalue(m.experts_total),
            "experts_active": qvalue(m.experts_active), "mtp_layers": qvalue(m.mtp_layers),
        }


def format_rows(ledger: Ledger) -> Iterator[Row]:
    for f in ledger.typed("format", Format):
        yield {
            "id": f.id, "name": f.name, "applies_to": list(f.applies_to),
            "bits_per_element": qvalue(f.bits_per_element), "bytes_per_param": qvalue(f.bytes_per_param),
            "block_size": f.block_size,
        }


def engine_rows(ledger: Ledger) -> Iterator[Row]:
    for e in ledger.typed("engine", Engine):
        yield {"id": e.id, "name": e.name, "repo": e.repo, "features": [c.feature for c in e.claims]}


def engine_claim_rows(ledger: Ledger) -> Iterator[Row]:
    for e in ledger.typed("engine", Engine):
        for c in e.claims:
            yield {"engine_id": e.id, "feature": c.feature, "methods": list(c.methods), "quote": c.quote}


def metric_rows() -> Iterator[Row]:
    for m in METRICS.values():
        yield {"metric": m.name, "higher_is_better": m.higher_is_better, "unit": m.units[0], "definition": m.definition}


__all__ = ["Row", "cnumber", "cvalue", "qvalue"]
