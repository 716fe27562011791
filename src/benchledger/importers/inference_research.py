"""``inference-research``: a benchmark JSON record of phantomic12/inference-research.

The file text becomes a source record (its stored excerpt); the one number (``value``) is quoted with the
``"value": …`` text. Structured fields map to the subject (``engine_id``, ``accelerator_ids``, ``interconnect_ids``,
``format_id``, ``model``) when this ledger holds matching records. The upstream schema keeps workload conditions
(batch, lengths, concurrency, TP, warmup) in free-text ``methodology``; they are copied verbatim into the body and
left ``unknown: unchecked`` for a reviewer — parsing prose into conditions would be guessing.

Metrics: ``ttft_ms`` → ttft, ``tps_aggregate`` / ``decode_tok_s`` → output_throughput, ``prefill_tok_s`` →
prefill_throughput, ``tok_s_per_user`` → per_stream_throughput, ``itl_ms`` → itl, ``memory_gb`` → memory,
``joules_per_token`` → energy_per_token; each keeps ``definition: inference-research-<metric>`` and the record's
free-text ``unit`` as the note. ``speedup_ratio``, ``dimensionless_ratio`` and ``quality`` are refused: a ratio is
derived from two arms in benchledger, never stored as an arm's result.
"""

from __future__ import annotations

import re
from typing import Any

from benchledger.errors import ImportFormatError
from benchledger.importers.common import InputFile, fill_omitted, known, omitted, quoted_result, record_id
from benchledger.importers.context import ImportContext, draft_body
from benchledger.importers.vllm_bench import load_json_object
from benchledger.schema import Arm, Benchmark, Source, Subject, Unknown, Workload
from benchledger.schema.benchmark import MeasuredBy

FORMAT = "inference-research"
METRICS: dict[str, tuple[str, str]] = {
    "ttft_ms": ("ttft", "ms"),
    "tps_aggregate": ("output_throughput", "tok/s"),
    "decode_tok_s": ("output_throughput", "tok/s"),
    "prefill_tok_s": ("prefill_throughput", "tok/s"),
    "tok_s_per_user": ("per_stream_throughput", "tok/s"),
    "itl_ms": ("itl", "ms"),
    "memory_gb": ("memory", "GB"),
    "joules_per_token": ("energy_per_token", "J/token"),
}
REFUSED = ("speedup_ratio", "dimensionless_ratio", "quality")
MEASURED_BY: dict[str, MeasuredBy] = {"vendor": "vendor", "third_party": "third-party", "self": "self"}
REQUIRED = ("id", "type", "name", "engine_id", "metric", "value")


def build(files: list[InputFile], ctx: ImportContext) -> None:
    """Add one draft benchmark and its source (the JSON text) per file to ``ctx.plan``."""
    for src in files:
        data = load_json_object(src)
        source_id = ctx.options.source or record_id(f"ir-json-{data.get('id') or src.path.stem}", src.sha256)
        ctx.plan.add(_record(src, data, source_id, ctx))
        if ctx.options.source is None:
            ctx.plan.add(Source(kind="source", id=source_id, title=f"inference-research record {data['id']} (JSON)",
                                source_type="github-file", publisher="phantomic12/inference-research",
                                retrieved=ctx.options.retrieved,
                                retrieved_via=f"benchledger import inference-research {src.path.name}",
                                sha256=src.sha256, body=src.text))


def _record(src: InputFile, data: dict[str, Any], source_id: str, ctx: ImportContext) -> Benchmark:
    for key in REQUIRED:
        if data.get(key) in (None, ""):
            raise ImportFormatError(src.path, key, "missing (required key of an inference-research benchmark)")
    if data["type"] != "benchmark":
        raise ImportFormatError(src.path, "type", f"only benchmark records import, got {data['type']!r}")
    metric_key = data["metric"]
    if metric_key in REFUSED:
        raise ImportFormatError(src.path, "metric", f"{metric_key!r} is a ratio between two runs; benchledger derives "
                                "ratios from paired arms — enter both arms (e.g. `benchledger ingest-table`)")
    if metric_key not in METRICS:
        raise ImportFormatError(src.path, "metric", f"unknown metric {metric_key!r}; expected one of "
                                f"{', '.join(METRICS)}")
    value = data["value"]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ImportFormatError(src.path, "value", f"expected a number, got {value!r}")
    quote = _quote(src, "value")
    metric, unit = METRICS[metric_key]
    result = quoted_result(metric, "value", float(value), unit, quote, source_id, f"inference-research-{metric_key}",
                           note=str(data.get("unit") or ""))
    accelerators = [a for a in data.get("accelerator_ids") or [] if isinstance(a, str)]
    subject = Subject(
        model=ctx.resolver.resolve("model", data.get("model") if isinstance(data.get("model"), str) else None),
        engine=ctx.resolver.resolve("engine", str(data["engine_id"])),
        accelerator=ctx.resolver.resolve("accelerator", accelerators[0] if accelerators else None),
        accelerator_alternates=[a for a in accelerators[1:] if a in ctx.resolver.records],
        interconnects=[i for i in data.get("interconnect_ids") or [] if i in ctx.resolver.records],
    )
    fmt = data.get("format_id")
    if fmt is None:
        subject.weights = omitted("format_id is null")
    else:
        found = ctx.resolver.existing_format(str(fmt))
        subject.weights = (known(found, _quote(src, "format_id"), source_id) if found else
                           Unknown(unknown="unchecked", note=f"format_id {fmt!r} names no format record of this ledger"))
    note = "inference-research keeps conditions in free-text `methodology` (copied into the body); not parsed"
    workload = Workload()
    fill_omitted(subject, note, reason="unchecked")
    fill_omitted(workload, note, reason="unchecked")
    measured_by = MEASURED_BY.get(str(data.get("measured_by")), "third-party")
    extra = [f"Upstream status `{data.get('status')}`, confidence {data.get('confidence')}, updated "
             f"{data.get('updated')}, upstream sources: {', '.join(map(str, data.get('sources') or [])) or 'none'}.",
             f"Upstream `measured_by: {data.get('measured_by')}` → `{measured_by}`."]
    dropped = [i for i in [*accelerators[1:], *(data.get("interconnect_ids") or [])] if i not in ctx.resolver.records]
    if dropped:
        extra.append(f"Upstream ids with no record in this ledger (left out): {', '.join(map(str, dropped))}.")
    body = draft_body(FORMAT, [src], extra, ctx.resolver.take_unmatched_lines())
    for key in ("unit", "methodology", "notes"):
        if data.get(key):
            body += f"\n## Upstream `{key}` (verbatim)\n\n{data[key]}\n"
    return Benchmark(kind="benchmark", id=record_id(ctx.options.id_prefix or f"ir-{data['id']}", src.sha256),
                     title=str(data["name"]), measured_by=measured_by, subject=subject, workload=workload,
                     arms=[Arm(name="reported", results=[result])], sources=[source_id], body=body)


def _quote(src: InputFile, key: str) -> str:
    """The verbatim ``"key": value`` text of the JSON file."""
    match = re.search(rf'"{key}"\s*:\s*("[^"\n]*"|[-+\d.eE]+)', src.text)
    if match is None:
        raise ImportFormatError(src.path, key, "value not found as literal text in the file")
    return match.group(0)


__all__ = ["FORMAT", "build"]
