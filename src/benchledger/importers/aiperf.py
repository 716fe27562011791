"""``aiperf``: AIPerf's ``profile_export_aiperf.json`` (PATH may be the file or its artifact folder).

Metric semantics mapped explicitly:

- ``inter_token_latency`` is (latency − TTFT)/(OSL − 1) per request = vLLM's **TPOT** → metric ``tpot``,
  definition ``aiperf-itl``;
- ``inter_chunk_latency`` (ICL) is the per-chunk gap = vLLM's **ITL** → metric ``itl``, definition ``aiperf-icl``;
- ``output_token_throughput`` = total OSL / (last response − first request) → ``output_throughput``.

When ``server_metrics_export.json`` sits beside it and holds vLLM spec-decode counters (totals over the profiling
phase), acceptance is computed from them: rate = Δaccepted/Δdraft_tokens, mean length = 1 + Δaccepted/Δdrafts,
per position = Δaccepted_pos/Δdrafts; summed over engines. ``profile_export.jsonl`` (per request) is stored as an
artifact when present; it holds chunk timings but not per-chunk token counts, so no value is converted from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchledger.errors import ImportFormatError
from benchledger.importers.common import (
    InputFile,
    fill_omitted,
    items,
    known,
    mapping,
    measured,
    measured_result,
    omitted,
    read_input,
    record_id,
    sub,
)
from benchledger.importers.context import ImportContext, draft_body
from benchledger.importers.vllm_bench import SPEC_NOTE, load_json_object
from benchledger.schema import (
    Acceptance,
    Arm,
    Benchmark,
    Result,
    Subject,
    Workload,
    condition_value,
)

FORMAT = "aiperf"
MAIN_FILE = "profile_export_aiperf.json"
SERVER_METRICS_FILE = "server_metrics_export.json"
PER_REQUEST_FILE = "profile_export.jsonl"
METRICS: dict[str, tuple[str, str]] = {
    "time_to_first_token": ("ttft", "aiperf-ttft"),
    "inter_token_latency": ("tpot", "aiperf-itl"),
    "inter_chunk_latency": ("itl", "aiperf-icl"),
    "request_latency": ("e2e_latency", "aiperf-request-latency"),
    "output_token_throughput": ("output_throughput", "aiperf-output-token-throughput"),
    "total_token_throughput": ("total_throughput", "aiperf-total-token-throughput"),
    "request_throughput": ("request_throughput", "aiperf-request-throughput"),
    "output_token_throughput_per_user": ("per_stream_throughput", "aiperf-output-token-throughput-per-user"),
}
STATS = {"avg": "mean", "p50": "median", "std": "std", "p90": "p90", "p95": "p95", "p99": "p99",
         "min": "min", "max": "max"}
UNITS = {"ms": "ms", "sec": "s", "tokens/sec": "tok/s", "tokens/sec/user": "tok/s", "requests/sec": "req/s"}
SINGLE_VALUE = {"output_throughput", "total_throughput", "request_throughput"}


def expand_input(path: Path) -> InputFile:
    """The main export file of an AIPerf artifact folder, or the file itself."""
    return read_input(path / MAIN_FILE if path.is_dir() else path)


def build(files: list[InputFile], ctx: ImportContext) -> None:
    """Add one draft benchmark per AIPerf export to ``ctx.plan``."""
    for src in files:
        data = load_json_object(src)
        siblings = _siblings(src)
        ctx.plan.add(_record(src, data, siblings, ctx))
        for stored in (src, *siblings.values()):
            ctx.plan.add_artifact(stored.artifact_path, stored.data)


def _siblings(src: InputFile) -> dict[str, InputFile]:
    """Companion exports beside the main file, stored in the main file's run folder."""
    out = {}
    for name in (SERVER_METRICS_FILE, PER_REQUEST_FILE):
        path = src.path.parent / name
        if path.is_file():
            out[name] = read_input(path).stored_with(src)
    return out


def _record(src: InputFile, data: dict[str, Any], siblings: dict[str, InputFile], ctx: ImportContext) -> Benchmark:
    if "aiperf_version" not in data or "input_config" not in data:
        raise ImportFormatError(src.path, "aiperf_version" if "aiperf_version" not in data else "input_config",
                                f"missing; not an AIPerf {MAIN_FILE}")
    config = mapping(data["input_config"], "input_config", src.path)
    model_name = _model_name(config)
    subject = Subject(model=ctx.resolver.resolve("model", model_name), engine=ctx.resolver.resolve("engine", None),
                      accelerator=ctx.resolver.resolve("accelerator", None))
    workload = _workload(src, data, config)
    fill_omitted(subject)
    fill_omitted(workload)
    conc = condition_value(workload.concurrency)
    arm = Arm(name=f"c{conc}" if isinstance(conc, int) else "run",
              results=_results(src, data))
    notes = ["AIPerf `inter_token_latency` = vLLM TPOT ((latency − TTFT)/(OSL − 1)) → `tpot` (aiperf-itl); "
             "`inter_chunk_latency` = vLLM ITL per chunk → `itl` (aiperf-icl).",
             f"AIPerf {data.get('aiperf_version')} is a client: the file names no serving engine or hardware."]
    server = siblings.get(SERVER_METRICS_FILE)
    if server is not None:
        spec = _acceptance(server, load_json_object(server))
        if spec is not None:
            arm.acceptance, arm.note = spec
            notes.append(f"Acceptance computed from the vLLM spec-decode counters in `{SERVER_METRICS_FILE}` "
                         "(totals over the profiling phase).")
            notes.append(SPEC_NOTE)
    prefix = ctx.options.id_prefix or f"aiperf-{model_name or 'run'}-{arm.name}"
    return Benchmark(kind="benchmark", id=record_id(prefix, src.sha256), measured_by="self",
                     title=f"AIPerf: {model_name or 'unnamed model'}, {arm.name} ({src.path.name})",
                     subject=subject, workload=workload, arms=[arm], sources=ctx.sources_for_measured(),
                     body=draft_body(FORMAT, [src, *siblings.values()], notes, ctx.resolver.take_unmatched_lines()))


def _model_name(config: dict[str, Any]) -> str | None:
    models = items(sub(config, "models"), "items")
    if len(models) == 1 and isinstance(models[0], dict):
        name = models[0].get("name")
        return name if isinstance(name, str) else None
    return None


def _workload(src: InputFile, data: dict[str, Any], config: dict[str, Any]) -> Workload:
    workload = Workload()
    phases = items(config, "phases")
    profiling = [p for p in phases if isinstance(p, dict) and p.get("kind") == "profiling"]
    if len(profiling) == 1:
        phase = profiling[0]
        if phase.get("type") == "concurrency" and isinstance(phase.get("concurrency"), int):
            workload.concurrency = known(phase["concurrency"], note="input_config.phases[profiling].concurrency")
            workload.scenario = "fixed-concurrency"
        if isinstance(phase.get("requests"), int):
            workload.num_prompts = phase["requests"]
    if phases and all(isinstance(p, dict) for p in phases):
        warm = [p for p in phases if p.get("kind") == "warmup"]
        workload.warmup = known(f"{len(warm)} warmup phase(s)" if warm else "none",
                                note="from input_config.phases")
    workload.input_tokens = _length(data, "input_sequence_length")
    workload.output_tokens = _length(data, "output_sequence_length")
    extra = sub(sub(config, "endpoint"), "extra")
    if "ignore_eos" in extra:
        workload.ignore_eos = known(bool(extra["ignore_eos"]), note="input_config.endpoint.extra")
    if "temperature" in extra:
        workload.temperature = known(extra["temperature"], note="input_config.endpoint.extra")
    else:
        workload.temperature = omitted("not sent in the requests: the server default applied")
    datasets = config.get("datasets")
    if isinstance(datasets, list) and len(datasets) == 1 and isinstance(datasets[0], dict):
        workload.dataset = known(str(datasets[0].get("type")), note="input_config.datasets[0].type")
    return workload


def _length(data: dict[str, Any], key: str) -> Any:
    stats = data.get(key)
    if not isinstance(stats, dict) or not isinstance(stats.get("avg"), (int, float)):
        return omitted()
    low, high, avg = stats.get("min"), stats.get("max"), stats["avg"]
    if low == high == avg:
        return known(int(avg) if float(avg).is_integer() else avg, note=f"AIPerf {key} (min = max)")
    return known(f"mean {avg:.6g} (min {low}, max {high})", note=f"AIPerf {key}")


def _results(src: InputFile, data: dict[str, Any]) -> list[Result]:
    out: list[Result] = []
    for key, (metric, definition) in METRICS.items():
        block = data.get(key)
        if block is None:
            continue
        block = mapping(block, key, src.path)
        unit = UNITS.get(str(block.get("unit")))
        if unit is None:
            raise ImportFormatError(src.path, f"{key}.unit", f"unexpected unit {block.get('unit')!r}")
        stats = {"avg": "value"} if metric in SINGLE_VALUE else STATS
        for stat_key, stat in stats.items():
            value = block.get(stat_key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                out.append(measured_result(metric, stat, float(value), unit, src, definition))
    count = data.get("completed_request_count") or data.get("request_count")
    if isinstance(count, dict) and isinstance(count.get("avg"), (int, float)):
        out.append(measured_result("completed_requests", "value", float(count["avg"]), "requests", src,
                                   "aiperf-completed-request-count"))
    errors = data.get("error_summary")
    if isinstance(errors, list):
        failed = sum(int(e.get("count", 0)) for e in errors if isinstance(e, dict))
        out.append(measured_result("failed_requests", "value", float(failed), "requests", src,
                                   "aiperf-error-summary"))
    return out


def _counter_totals(metrics: dict[str, Any], name: str) -> dict[str, float]:
    """Totals of one counter over the phase, summed over engines, keyed by the ``position`` label ('' if none)."""
    family = metrics.get(name)
    out: dict[str, float] = {}
    if not isinstance(family, dict):
        return out
    for series in items(family, "series"):
        total = sub(series, "stats").get("total")
        if isinstance(total, (int, float)):
            pos = str(sub(series, "labels").get("position", ""))
            out[pos] = out.get(pos, 0.0) + float(total)
    return out


def _acceptance(src: InputFile, data: dict[str, Any]) -> tuple[Acceptance, str] | None:
    metrics = data.get("metrics")
    if not isinstance(metrics, dict):
        return None
    drafts = _counter_totals(metrics, "vllm:spec_decode_num_drafts").get("")
    draft_tokens = _counter_totals(metrics, "vllm:spec_decode_num_draft_tokens").get("")
    accepted = _counter_totals(metrics, "vllm:spec_decode_num_accepted_tokens").get("")
    per_pos = _counter_totals(metrics, "vllm:spec_decode_num_accepted_tokens_per_pos")
    if not drafts or not draft_tokens or accepted is None:
        return None
    positions = sorted(per_pos, key=lambda p: int(p) if p.isdigit() else -1)
    note = "from vllm:spec_decode_* counter totals over the profiling phase (summed over engines)"
    acceptance = Acceptance(
        rate=measured(accepted / draft_tokens, "fraction", src, note=note),
        mean_length=measured(1 + accepted / drafts, "tokens", src, note=note),
        per_position=[measured(per_pos[p] / drafts, "fraction", src, note=f"position {p}; {note}")
                      for p in positions],
        definition="vllm-counters-windowed", window="AIPerf profiling phase (server_metrics_export totals)",
    )
    counts = f"num_drafts={drafts:g}, draft_tokens={draft_tokens:g}, accepted_tokens={accepted:g}"
    k = f"; {len(positions)} per-position counter series (k = {len(positions)})" if positions else ""
    return acceptance, f"spec-decode counters over the profiling phase: {counts}{k}"


__all__ = ["FORMAT", "build", "expand_input"]
