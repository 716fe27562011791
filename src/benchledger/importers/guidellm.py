"""``guidellm``: GuideLLM's benchmarks report (JSON or YAML). Each benchmark of the report becomes one arm.

Metric semantics mapped explicitly:

- ``inter_token_latency_ms`` = (last token − first token)/(n − 1) = vLLM's TPOT formula → metric ``tpot``,
  definition ``guidellm-itl``. GuideLLM's distribution is over *tokens* (count = Σ(n − 1)), not requests.
- ``time_per_output_token_ms`` = (last token − request start)/n **includes TTFT** → metric ``tpot``, definition
  ``guidellm-tpot-incl-ttft`` (kept as stated, never relabelled).
- When the report keeps every successful request's timings, the per-request vLLM TPOT distribution is computed
  exactly from them (definition ``vllm-tpot``). A report whose per-request list was trimmed is not converted.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from benchledger.errors import ImportFormatError
from benchledger.importers.common import (
    InputFile,
    fill_omitted,
    hoist_shared,
    items,
    known,
    mapping,
    measured_result,
    omitted,
    percentile,
    record_id,
    sub,
)
from benchledger.importers.context import ImportContext, draft_body
from benchledger.schema import Arm, Benchmark, Result, Subject, Workload, WorkloadOverride, condition_value

FORMAT = "guidellm"
DISTRIBUTIONS: dict[str, tuple[str, str, str]] = {
    "time_to_first_token_ms": ("ttft", "ms", "guidellm-ttft"),
    "inter_token_latency_ms": ("tpot", "ms", "guidellm-itl"),
    "time_per_output_token_ms": ("tpot", "ms", "guidellm-tpot-incl-ttft"),
    "request_latency": ("e2e_latency", "s", "guidellm-request-latency"),
}
RATES: dict[str, tuple[str, str, str]] = {
    "output_tokens_per_second": ("output_throughput", "tok/s", "guidellm-output-tokens-per-second-mean"),
    "tokens_per_second": ("total_throughput", "tok/s", "guidellm-tokens-per-second-mean"),
    "requests_per_second": ("request_throughput", "req/s", "guidellm-requests-per-second-mean"),
}
STATS = {"mean": "mean", "median": "median", "std_dev": "std", "min": "min", "max": "max"}
PERCENTILES = {"p90": "p90", "p95": "p95", "p99": "p99"}


def _load(src: InputFile) -> dict[str, Any]:
    try:
        data = json.loads(src.text) if src.path.suffix == ".json" else yaml.safe_load(src.text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        line = getattr(exc, "lineno", None) or getattr(getattr(exc, "problem_mark", None), "line", None)
        raise ImportFormatError(src.path, f"line {line}" if line else "", f"not a JSON/YAML report ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list) or not data["benchmarks"]:
        raise ImportFormatError(src.path, "benchmarks", "missing or empty; not a GuideLLM benchmarks report")
    return data


def build(files: list[InputFile], ctx: ImportContext) -> None:
    """Add one draft benchmark per report (one arm per benchmark of the report) to ``ctx.plan``."""
    for src in files:
        ctx.plan.add(_record(src, _load(src), ctx))
        ctx.plan.add_artifact(src.artifact_path, src.data)


def _record(src: InputFile, data: dict[str, Any], ctx: ImportContext) -> Benchmark:
    notes = ["GuideLLM `inter_token_latency_ms` = (last − first token)/(n − 1), vLLM's TPOT formula but "
             "distributed over tokens → `tpot` (guidellm-itl).",
             "GuideLLM `time_per_output_token_ms` includes TTFT → kept as `tpot` with definition "
             "guidellm-tpot-incl-ttft.",
             "GuideLLM is a client: the report names no serving engine, hardware or version."]
    arms: list[Arm] = []
    models: set[str] = set()
    for i, bench in enumerate(data["benchmarks"]):
        where = f"benchmarks[{i}]."
        bench = mapping(bench, f"benchmarks[{i}]", src.path)
        config = mapping(bench.get("config"), f"{where}config", src.path)
        backend = sub(config, "backend")
        if isinstance(backend.get("model"), str):
            models.add(backend["model"])
        workload = _workload(src, bench, config, where)
        results, converted = _results(src, bench, where)
        notes.append(converted)
        name = _arm_name(workload, i)
        arms.append(Arm(name=name, workload=workload, results=results))
    model_name = next(iter(models)) if len(models) == 1 else None
    shared = Workload()
    per_arm = hoist_shared(arms, shared, "workload")
    fill_omitted(shared, skip=per_arm)
    subject = Subject(model=ctx.resolver.resolve("model", model_name), engine=ctx.resolver.resolve("engine", None),
                      accelerator=ctx.resolver.resolve("accelerator", None))
    fill_omitted(subject)
    prefix = ctx.options.id_prefix or f"guidellm-{model_name or 'run'}-{arms[0].name if len(arms) == 1 else 'sweep'}"
    return Benchmark(kind="benchmark", id=record_id(prefix, src.sha256), measured_by="self",
                     title=f"GuideLLM: {model_name or 'unnamed model'}, {', '.join(a.name for a in arms)}",
                     subject=subject, workload=shared, arms=arms, sources=ctx.sources_for_measured(),
                     body=draft_body(FORMAT, [src], list(dict.fromkeys(notes)), ctx.resolver.take_unmatched_lines()))


def _arm_name(workload: WorkloadOverride, index: int) -> str:
    value = condition_value(workload.concurrency)
    return f"c{value}" if isinstance(value, int) else f"run-{index + 1}"


def _workload(src: InputFile, bench: dict[str, Any], config: dict[str, Any], where: str) -> WorkloadOverride:
    w = WorkloadOverride()
    strategy = sub(config, "strategy")
    kind = strategy.get("type_")
    if kind == "synchronous":
        w.scenario, w.concurrency = "fixed-concurrency", known(1, note="synchronous strategy")
    elif kind == "concurrent" and isinstance(strategy.get("streams"), int):
        w.scenario, w.concurrency = "fixed-concurrency", known(strategy["streams"], note="strategy.streams")
    elif kind in ("constant", "poisson") and isinstance(strategy.get("rate"), (int, float)):
        w.scenario = "request-rate"
        w.request_rate = known(float(strategy["rate"]), note=f"{kind} strategy rate (req/s)")
    elif kind == "throughput":
        w.scenario = "offline"
    constraints = sub(config, "constraints")
    for name, field in (("max_requests", "num_prompts"), ("max_duration", "max_seconds")):
        arg = sub(sub(constraints, name), "args").get("count" if field == "num_prompts" else "duration")
        if isinstance(arg, (int, float)) and not isinstance(arg, bool):
            setattr(w, field, arg)
    warm = config.get("warmup")
    if isinstance(warm, dict) and "percent" in warm and "value" in warm:
        none = warm.get("percent") is None and warm.get("value") is None
        w.warmup = known("none" if none else f"percent={warm.get('percent')} value={warm.get('value')}",
                         note=f"{where}config.warmup")
    metrics = mapping(bench.get("metrics"), f"{where}metrics", src.path)
    w.input_tokens = _length(metrics, "prompt_token_count")
    w.output_tokens = _length(metrics, "output_token_count")
    body = _first_request_body(bench)
    if body is not None:
        w.ignore_eos = known(bool(body["ignore_eos"]), note="request body") if "ignore_eos" in body else omitted()
        w.temperature = (known(body["temperature"], note="request body") if "temperature" in body
                         else omitted("not sent in the requests: the server default applied"))
    return w


def _first_request_body(bench: dict[str, Any]) -> dict[str, Any] | None:
    ok = items(sub(bench, "requests"), "successful")
    if not ok or not isinstance(ok[0], dict) or not isinstance(ok[0].get("request_args"), str):
        return None
    try:
        args = json.loads(ok[0]["request_args"])
    except json.JSONDecodeError:
        return None
    body = args.get("body") if isinstance(args, dict) else None
    return body if isinstance(body, dict) else None


def _length(metrics: dict[str, Any], key: str) -> Any:
    stats = sub(sub(metrics, key), "successful")
    if not isinstance(stats.get("mean"), (int, float)):
        return omitted()
    low, high, mean = stats.get("min"), stats.get("max"), stats["mean"]
    if low == high == mean:
        return known(int(mean) if float(mean).is_integer() else mean, note=f"GuideLLM {key} (min = max)")
    return known(f"mean {mean:.6g} (min {low:g}, max {high:g})", note=f"GuideLLM {key} (successful requests)")


def _results(src: InputFile, bench: dict[str, Any], where: str) -> tuple[list[Result], str]:
    metrics = mapping(bench.get("metrics"), f"{where}metrics", src.path)
    out: list[Result] = []
    for key, (metric, unit, definition) in RATES.items():
        stats = _successful(metrics, key)
        if stats is not None and isinstance(stats.get("mean"), (int, float)):
            out.append(measured_result(metric, "value", float(stats["mean"]), unit, src, definition))
    for key, (metric, unit, definition) in DISTRIBUTIONS.items():
        stats = _successful(metrics, key)
        if stats is None:
            continue
        picked = {STATS[k]: stats.get(k) for k in STATS}
        pct = sub(stats, "percentiles")
        picked.update({PERCENTILES[k]: pct.get(k) for k in PERCENTILES})
        for stat, value in picked.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                out.append(measured_result(metric, stat, float(value), unit, src, definition))
    totals = sub(metrics, "request_totals")
    for key, metric in (("successful", "completed_requests"), ("errored", "failed_requests")):
        if isinstance(totals.get(key), int):
            out.append(measured_result(metric, "value", float(totals[key]), "requests", src,
                                       f"guidellm-request-totals-{key}"))
    converted, note = _per_request_tpot(src, bench, totals.get("successful"))
    return out + converted, note


def _successful(metrics: dict[str, Any], key: str) -> dict[str, Any] | None:
    block = metrics.get(key)
    stats = block.get("successful") if isinstance(block, dict) else None
    return stats if isinstance(stats, dict) else None


def _per_request_tpot(src: InputFile, bench: dict[str, Any], total_ok: Any) -> tuple[list[Result], str]:
    """vLLM TPOT per request from every successful request's timings, when all of them are in the report."""
    ok = items(sub(bench, "requests"), "successful")
    if not isinstance(total_ok, int) or len(ok) != total_ok or total_ok == 0:
        return [], (f"Per-request timings cover {len(ok)} of {total_ok} successful requests, so GuideLLM's "
                    "token-weighted TPOT is not converted to vLLM's per-request TPOT.")
    values: list[float] = []
    for req in ok:
        timings = sub(sub(req, "info"), "timings")
        first, last = timings.get("first_token_iteration"), timings.get("last_token_iteration")
        n = req.get("output_tokens") if isinstance(req, dict) else None
        if not (isinstance(first, (int, float)) and isinstance(last, (int, float)) and isinstance(n, int)):
            return [], "Some requests lack token timings; no per-request TPOT was computed."
        if n > 1:
            values.append((last - first) * 1000.0 / (n - 1))
    if not values:
        return [], "No request produced more than one token; no per-request TPOT was computed."
    note = "per request (last_token_iteration − first_token_iteration)/(output_tokens − 1), requests with n > 1"
    stats = {"mean": sum(values) / len(values), "median": percentile(values, 50), "p90": percentile(values, 90),
             "p99": percentile(values, 99)}
    results = [measured_result("tpot", stat, v, "ms", src, "vllm-tpot", note=note) for stat, v in stats.items()]
    return results, "Every successful request's timings are in the report: vLLM per-request TPOT computed exactly."


__all__ = ["FORMAT", "build"]
