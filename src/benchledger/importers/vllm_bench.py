"""``vllm-bench``: the JSON written by ``vllm bench serve --save-result`` (and benchledger's own ``summary.json``).

Key semantics (as ``vllm bench serve`` writes them): ``*_ttft_ms`` = first SSE message with content − send;
``*_tpot_ms`` = per request (E2EL − TTFT)/(n − 1); ``*_itl_ms`` = per-*chunk* gaps pooled over requests;
``output_throughput`` = Σ output tokens / duration (drain tail included); ``spec_decode_*`` = /metrics counters
differenced over the run (rate in %, length with the bonus token, per-position = unconditional survival).
A benchledger ``summary.json`` (``benchledger bench``) is recognised by its ``definitions`` and
``spec_decode_counter_family`` keys; its results and acceptance come from the one mapping that ``bench --record``
uses too (``importers/benchledger_run.py``), and it states warmup (``warmup_requests``).
"""

from __future__ import annotations

import json
import math
from typing import Any

from benchledger.errors import ImportFormatError
from benchledger.importers.benchledger_run import summary_acceptance, summary_results
from benchledger.importers.common import (
    InputFile,
    distribution,
    fill_omitted,
    known,
    measured,
    measured_result,
    number,
    omitted,
    optional_number,
    record_id,
)
from benchledger.importers.context import ImportContext, draft_body
from benchledger.schema import (
    Acceptance,
    Arm,
    Benchmark,
    Result,
    Subject,
    Workload,
    condition_value,
)

FORMAT = "vllm-bench"
REQUIRED_KEYS = ("duration", "completed", "total_output_tokens", "output_throughput")
LATENCY_KEYS: dict[str, tuple[str, str]] = {
    "ttft": ("ttft", "vllm-ttft"),
    "tpot": ("tpot", "vllm-tpot"),
    "itl": ("itl", "vllm-itl-per-chunk"),
    "e2el": ("e2e_latency", "vllm-e2el"),
}
SPEC_NOTE = ("Spec-decode counters are present, so speculation was on, but the file states neither the method "
             "nor a baseline run: acceptance is recorded, `speculative` is left for the reviewer to set together "
             "with the baseline arm it is compared against.")
STATS = (("mean", "mean"), ("median", "median"), ("std", "std"), ("p90", "p90"), ("p95", "p95"), ("p99", "p99"))


def load_json_object(src: InputFile) -> dict[str, Any]:
    """Parse a JSON object; syntax errors name the line."""
    try:
        data = json.loads(src.text)
    except json.JSONDecodeError as exc:
        raise ImportFormatError(src.path, f"line {exc.lineno}", f"not valid JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise ImportFormatError(src.path, "", f"expected a JSON object at the top, got {type(data).__name__}")
    return data


def build(files: list[InputFile], ctx: ImportContext) -> None:
    """Add one draft benchmark per file to ``ctx.plan``."""
    for src in files:
        ctx.plan.add(_record(src, load_json_object(src), ctx))
        ctx.plan.add_artifact(src.artifact_path, src.data)


def _record(src: InputFile, data: dict[str, Any], ctx: ImportContext) -> Benchmark:
    for key in REQUIRED_KEYS:
        number(data, key, src.path)
    is_benchledger = isinstance(data.get("definitions"), dict) and "spec_decode_counter_family" in data
    model_name = data.get("model_id")
    if model_name is not None and not isinstance(model_name, str):
        raise ImportFormatError(src.path, "model_id", f"expected a string, got {model_name!r}")
    notes: list[str] = []
    subject = Subject(
        model=ctx.resolver.resolve("model", model_name),
        engine=ctx.resolver.resolve("engine", None),
        accelerator=ctx.resolver.resolve("accelerator", None),
    )
    if not is_benchledger:
        notes.append("`vllm bench serve` is a client: the file names no serving engine, hardware or version.")
    workload = _workload(src, data)
    warm = data.get("warmup_requests")
    if is_benchledger and isinstance(warm, int):
        workload.warmup = known(f"{warm} requests", note="warmup_requests (excluded from results)")
    fill_omitted(subject)
    fill_omitted(workload)
    arm = Arm(name=_arm_name(workload), results=_results(src, data, is_benchledger))
    spec = _speculative(src, data, is_benchledger)
    if spec is not None:
        arm.acceptance, arm.note = spec
        notes.append(SPEC_NOTE)
    fmt = "benchledger-run" if is_benchledger else FORMAT
    prefix = ctx.options.id_prefix or f"{fmt}-{model_name or 'run'}-{arm.name}"
    unmatched = ctx.resolver.take_unmatched_lines()
    return Benchmark(
        kind="benchmark", id=record_id(prefix, src.sha256), measured_by="benchledger" if is_benchledger else "self",
        title=f"{fmt}: {model_name or 'unnamed model'}, {arm.name} ({src.path.name})",
        subject=subject, workload=workload, arms=[arm], sources=ctx.sources_for_measured(),
        body=draft_body(fmt, [src], notes, unmatched),
    )


def _arm_name(workload: Workload) -> str:
    conc = condition_value(workload.concurrency)
    return f"c{conc}" if isinstance(conc, int) else "run"


def _workload(src: InputFile, data: dict[str, Any]) -> Workload:
    workload = Workload()
    rate = data.get("request_rate")
    conc = data.get("max_concurrency")
    if isinstance(conc, int) and not isinstance(conc, bool):
        workload.concurrency = known(conc, note="max_concurrency")
    finite_rate = isinstance(rate, (int, float)) and not isinstance(rate, bool) and math.isfinite(rate)
    if finite_rate:
        workload.request_rate = known(float(rate), note="request_rate (req/s)")  # type: ignore[arg-type]
        workload.scenario = "request-rate"
    elif rate in ("inf", float("inf")) and workload.concurrency is not None:
        workload.scenario = "fixed-concurrency"
    num_prompts = data.get("num_prompts")
    if isinstance(num_prompts, int):
        workload.num_prompts = num_prompts
    completed = number(data, "completed", src.path)
    workload.input_tokens = _lengths(data, "input_lens", "total_input_tokens", completed)
    workload.output_tokens = _lengths(data, "output_lens", "total_output_tokens", completed)
    return workload


def _lengths(data: dict[str, Any], per_request: str, total: str, completed: float) -> Any:
    values = data.get(per_request)
    if isinstance(values, list) and values and all(isinstance(v, (int, float)) for v in values):
        stated = distribution([float(v) for v in values])
        return known(stated, note=f"from the per-request `{per_request}`") if stated is not None else omitted()
    tot = data.get(total)
    if isinstance(tot, (int, float)) and completed > 0:
        return known(f"mean {tot / completed:.6g}", note=f"{total} / completed (no per-request lengths saved)")
    return omitted()


def _results(src: InputFile, data: dict[str, Any], is_benchledger: bool) -> list[Result]:
    if is_benchledger:
        return summary_results(data, lambda metric, stat, value, unit: Result.model_validate({
            "metric": metric, "stat": stat, "value": value, "unit": unit, "provenance": "measured",
            "run": src.artifact_path, "sha256": src.sha256}))

    out: list[Result] = []
    simple = (("output_throughput", "output_throughput", "tok/s", "vllm-output-throughput"),
              ("total_token_throughput", "total_throughput", "tok/s", "vllm-total-throughput"),
              ("request_throughput", "request_throughput", "req/s", "vllm-request-throughput"),
              ("completed", "completed_requests", "requests", "vllm-completed"),
              ("failed", "failed_requests", "requests", "vllm-failed"))
    for key, metric, unit, name in simple:
        value = optional_number(data, key, src.path)
        if value is not None:
            out.append(measured_result(metric, "value", value, unit, src, name))
    for short, (metric, name) in LATENCY_KEYS.items():
        for prefix, stat in STATS:
            value = optional_number(data, f"{prefix}_{short}_ms", src.path)
            if value is not None:
                out.append(measured_result(metric, stat, value, "ms", src, name))
    return out


def _speculative(src: InputFile, data: dict[str, Any], benchledger: bool) -> tuple[Acceptance, str] | None:
    """Acceptance from the spec_decode_* keys, and an arm note with the raw counters and the drafts per step."""
    rate = optional_number(data, "spec_decode_acceptance_rate", src.path)
    length = optional_number(data, "spec_decode_acceptance_length", src.path)
    per_pos = data.get("spec_decode_per_position_acceptance_rates")
    if rate is None and length is None and per_pos is None:
        return None
    if per_pos is not None and not (isinstance(per_pos, list) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in per_pos)):
        raise ImportFormatError(src.path, "spec_decode_per_position_acceptance_rates", "expected a list of numbers")
    counts = {k: data.get(f"spec_decode_{k}") for k in ("num_drafts", "draft_tokens", "accepted_tokens")}
    stated = ", ".join(f"{n}={v}" for n, v in counts.items() if v is not None)
    k = f"; {len(per_pos)} per-position rates (k = {len(per_pos)})" if per_pos else ""
    if benchledger:
        shared = summary_acceptance(data, lambda value, unit: measured(value, unit, src))
        return (shared, f"spec-decode counters over the run: {stated}{k}") if shared is not None else None
    acceptance = Acceptance(
        rate=measured(rate, "fraction" if benchledger else "%", src) if rate is not None else None,
        mean_length=measured(length, "tokens", src) if length is not None else None,
        per_position=[measured(float(v), "fraction", src) for v in per_pos or []],
        definition="vllm-counters-windowed", window="the benchmark run (counters read before and after)",
    )
    return acceptance, f"spec-decode counters over the run: {stated}{k}"


__all__ = ["FORMAT", "build", "load_json_object"]
