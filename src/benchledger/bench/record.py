"""The ledger benchmark record of a run: one arm per (arm, load point), every number ``measured``.

Each result is a ``Result`` with ``provenance: measured``, ``run`` = the arm's folder relative to the ledger root
(it holds ``requests.jsonl``) and ``sha256`` = the hash of that ``requests.jsonl``; the audit re-hashes it.
Speculative arms name the first arm at the same load point as their ``baseline``. Conditions come from the run
configuration; what the harness cannot know (the hardware behind a URL) is ``unknown: unchecked`` with a note.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchledger.bench.outputs import REQUESTS_FILE, sha256_file
from benchledger.bench.run import PointResult, RunConfig
from benchledger.errors import BenchError
from benchledger.schema import (
    Acceptance,
    Arm,
    Benchmark,
    Condition,
    HistoryEntry,
    Known,
    Parallelism,
    Quantity,
    Result,
    Speculative,
    Subject,
    Unknown,
    Workload,
    WorkloadOverride,
)

RESULT_KEYS: tuple[tuple[str, str, str, str], ...] = (
    # summary key, metric, stat, unit
    ("output_throughput", "output_throughput", "value", "tok/s"),
    ("total_token_throughput", "total_throughput", "value", "tok/s"),
    ("request_throughput", "request_throughput", "value", "req/s"),
    ("mean_ttft_ms", "ttft", "mean", "ms"),
    ("median_ttft_ms", "ttft", "median", "ms"),
    ("p99_ttft_ms", "ttft", "p99", "ms"),
    ("mean_tpot_ms", "tpot", "mean", "ms"),
    ("median_tpot_ms", "tpot", "median", "ms"),
    ("p99_tpot_ms", "tpot", "p99", "ms"),
    ("median_itl_ms", "itl", "median", "ms"),
    ("p99_itl_ms", "itl", "p99", "ms"),
    ("median_itl_per_token_ms", "itl_per_token", "median", "ms"),
    ("median_e2el_ms", "e2e_latency", "median", "ms"),
    ("completed", "completed_requests", "value", "requests"),
    ("failed", "failed_requests", "value", "requests"),
)


@dataclass
class RecordTarget:
    """Where the record goes and which ledger ids it references."""

    ledger_root: Path
    record_id: str
    model: str
    engine: str
    accelerator: str
    title: str = ""
    accelerator_count: Condition = field(
        default_factory=lambda: Unknown(unknown="unchecked", note="the harness talks to a URL; it does not "
                                        "check what hardware serves it")
    )
    weights: Condition = field(
        default_factory=lambda: Unknown(unknown="unchecked", note="weight format not recorded by the harness")
    )
    parallelism: Parallelism = field(
        default_factory=lambda: Parallelism(tp=Unknown(unknown="unchecked", note="not visible through the API"))
    )
    engine_versions: dict[str, str | None] = field(default_factory=dict)
    launch_commands: dict[str, str] = field(default_factory=dict)
    body: str = ""


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def arm_name(arm: str, point: PointResult, multi: bool) -> str:
    """Ledger arm name: the harness arm, suffixed by the load point when the run swept several."""
    return f"{arm}-{point.point.label}".replace(".", "-") if multi else arm


def build_record(config: RunConfig, points: list[PointResult], summaries: list[dict[str, dict[str, Any]]],
                 target: RecordTarget) -> Benchmark:
    """The ``Benchmark`` record of a finished run (folders must already be under ``target.ledger_root``)."""
    root = target.ledger_root.resolve()
    multi = len(points) > 1
    arms: list[Arm] = []
    base_name = config.arms[0].name
    for point, point_summaries in zip(points, summaries, strict=True):
        for spec in config.arms:
            folder = (point.folder / spec.name).resolve()
            try:
                rel = folder.relative_to(root).as_posix()
            except ValueError:
                raise BenchError(f"run folder {folder} is not inside the ledger {root}") from None
            digest = sha256_file(folder / REQUESTS_FILE)
            summary = point_summaries[spec.name]
            results = [
                Result(metric=metric, stat=stat, value=summary[key], unit=unit,
                       provenance="measured", run=rel, sha256=digest)
                for key, metric, stat, unit in RESULT_KEYS
                if _finite(summary.get(key))
            ]
            load = WorkloadOverride(concurrency=point.point.concurrency) if point.point.concurrency else \
                WorkloadOverride(request_rate=point.point.rate)
            arm = Arm(
                name=arm_name(spec.name, point, multi),
                baseline=arm_name(base_name, point, multi) if spec.name != base_name else None,
                workload=load if multi else None,
                results=results,
                note="; ".join(summary.get("warnings") or []),
            )
            if spec.speculative:
                arm.speculative = Speculative(method=spec.spec_method or "other", k=spec.spec_k
                                              if spec.spec_k is not None else Unknown(unknown="unchecked"),
                                              config=target.launch_commands.get(spec.name))
                arm.acceptance = _acceptance(summary, rel, digest)
            arms.append(arm)
    point0 = points[0].point
    base_version = target.engine_versions.get(base_name)
    subject = Subject(
        model=target.model,
        engine=target.engine,
        accelerator=target.accelerator,
        accelerator_count=target.accelerator_count,
        weights=target.weights,
        parallelism=target.parallelism,
        engine_version=base_version if base_version else Unknown(
            unknown="unchecked", note="the server reported no version (/version, /props)"),
        engine_flags=target.launch_commands.get(base_name),
    )
    workload = _workload(config, point0 if not multi else None)
    today = dt.datetime.now(dt.UTC).date()
    return Benchmark(
        id=target.record_id,
        kind="benchmark",
        title=target.title or f"benchledger run {target.record_id}",
        measured_by="benchledger",
        subject=subject,
        workload=workload,
        arms=arms,
        history=[HistoryEntry(date=today, change="created by benchledger bench", why="measured run",
                              numbers_changed=True)],
        body=target.body,
    )


def _workload(config: RunConfig, point: Any) -> Workload:
    req = config.request
    inputs = {p.input_tokens for p in config.prompts}
    only = next(iter(inputs)) if len(inputs) == 1 else None
    input_tokens: Condition
    if only is not None:
        input_tokens = Known(value=int(only), note="exact, from the server's /tokenize")
    else:
        input_tokens = Unknown(unknown="unchecked", note="prompt lengths vary; server-reported totals are in "
                               "each arm's summary.json")
    out_note = "max_tokens" + (" with ignore_eos (fixed length)" if req.ignore_eos else " (a cap: EOS may stop earlier)")
    return Workload(
        scenario="fixed-concurrency" if config.points[0].concurrency else "request-rate",
        input_tokens=input_tokens,
        output_tokens=Known(value=req.output_tokens, note=out_note),
        concurrency=point.concurrency if point is not None and point.concurrency else None,
        request_rate=point.rate if point is not None and point.rate else None,
        num_prompts=config.num_prompts,
        max_seconds=config.max_seconds if config.max_seconds is not None else None,
        warmup=Known(value=config.warmup, note="requests per arm per load point, excluded from results"),
        temperature=req.temperature if req.temperature is not None else Unknown(
            unknown="unchecked", note="not pinned: server default"),
        ignore_eos=req.ignore_eos,
        dataset="synthetic" if config.synthetic else "prompt file",
    )


def _acceptance(summary: dict[str, Any], run: str, digest: str) -> Acceptance | None:
    def q(value: Any, unit: str) -> Quantity | None:
        return Quantity(value=value, unit=unit, provenance="measured", run=run, sha256=digest) if _finite(value) else None

    rate = q(summary.get("spec_decode_acceptance_rate"), "fraction")
    if rate is None:
        return None
    per_pos = [x for v in summary.get("spec_decode_per_position_acceptance_rates") or [] if (x := q(v, "fraction"))]
    family = summary.get("spec_decode_counter_family") or "engine"
    return Acceptance(
        rate=rate,
        mean_length=q(summary.get("spec_decode_acceptance_length"), "tokens"),
        per_position=per_pos,
        definition=f"{family}-counters-windowed: rate = Δaccepted/Δdraft_tokens, mean length = "
        "1 + Δaccepted/Δdrafts (bonus token included), per-position = Δaccepted_pos/Δdrafts",
        window="measured rounds after warmup (metrics-before.prom → metrics-after.prom in the run folder)",
    )


__all__ = ["RESULT_KEYS", "RecordTarget", "arm_name", "build_record"]
