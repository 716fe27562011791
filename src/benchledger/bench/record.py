"""The ledger benchmark record of a run: one arm per (arm, load point), every number ``measured``.

Each result is a ``Result`` with ``provenance: measured``, ``run`` = the arm's folder relative to the ledger root
(it holds ``requests.jsonl``) and ``sha256`` = the hash of that ``requests.jsonl``; the audit re-hashes it.
Speculative arms name the first arm at the same load point as their ``baseline``. Conditions come from the run
configuration; what the harness cannot know (the hardware behind a URL) is ``unknown: unchecked`` with a note.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchledger.bench.outputs import REQUESTS_FILE, sha256_file
from benchledger.bench.run import PointResult, RunConfig
from benchledger.bench.rundata import Summary
from benchledger.errors import BenchError
from benchledger.importers.benchledger_run import (
    MakeQuantity,
    MakeResult,
    comparison_speedups,
    summary_acceptance,
    summary_results,
)
from benchledger.schema import (
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
from benchledger.schema.provenance import SLUG_PATTERN


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
    overwrite: bool = False
    """Replace an existing record / run folder of the same id (the old folder is moved aside, not deleted)."""
    record_incomplete: bool = False
    """Record an interrupted run too, as a ``complete: false`` record (``measured.incomplete`` in the audit)."""


def check_target(target: RecordTarget) -> None:
    """Refuse, before anything runs, a record id that is not a slug or already exists (without ``overwrite``)
    and ledger ids (model, engine, accelerator, weights) that the ledger does not hold as that kind."""
    from benchledger.ledger.store import Ledger

    if not re.fullmatch(SLUG_PATTERN, target.record_id):
        raise BenchError(f"--record-id {target.record_id!r}: expected a slug (lower-case letters, digits, '.', '-', "
                         "'_'; no path separators)")
    ledger = Ledger.load(target.ledger_root)
    refs = [("--record-model", target.model, "model"), ("--record-engine", target.engine, "engine"),
            ("--record-accelerator", target.accelerator, "accelerator")]
    if isinstance(target.weights, str):
        refs.append(("--record-weights", target.weights, "format"))
    for flag, ref, kind in refs:
        if not re.fullmatch(SLUG_PATTERN, ref):
            raise BenchError(f"{flag} {ref!r}: expected a ledger id (a slug)")
        rec = ledger.records.get(ref)
        if rec is None:
            raise BenchError(f"{flag} {ref!r}: no such record in the ledger {ledger.root}")
        if getattr(rec, "kind", None) != kind:
            raise BenchError(f"{flag} {ref!r}: that record is of kind {getattr(rec, 'kind', '?')}, not {kind}")
    if not target.overwrite:
        if target.record_id in ledger.records:
            raise BenchError(f"--record-id {target.record_id!r}: a record with that id exists (--overwrite replaces it)")
        if (ledger.root / "runs" / target.record_id).exists():
            raise BenchError(f"--record-id {target.record_id!r}: runs/{target.record_id}/ exists in the ledger "
                             "(--overwrite replaces it; the old folder is kept aside)")


def place_run_folder(out: Path, root: Path, record_id: str, *, overwrite: bool = False) -> Path:
    """Copy the run folder ``out`` to ``root/runs/<record_id>`` atomically: into a temporary sibling, then one
    rename. An existing folder is refused, or with ``overwrite`` moved aside to ``<id>.replaced-<time>``: nothing
    this run did not create is deleted. A failed or interrupted copy removes only its own temporary folder."""
    if not re.fullmatch(SLUG_PATTERN, record_id):
        raise BenchError(f"record id {record_id!r} is not a slug")
    runs = root / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    dest = runs / record_id
    tmp = Path(tempfile.mkdtemp(prefix=f".{record_id}.", suffix=".tmp", dir=runs))
    try:
        shutil.copytree(out, tmp, dirs_exist_ok=True)
        if dest.exists():
            if not overwrite:
                raise BenchError(f"{dest} exists: not replaced (--overwrite moves it aside)")
            stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S-%f")
            dest.rename(runs / f"{record_id}.replaced-{stamp}")
        tmp.rename(dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)  # ours: created above
        raise
    return dest


def arm_name(arm: str, point: PointResult, multi: bool) -> str:
    """Ledger arm name: the harness arm, suffixed by the load point when the run swept several."""
    return f"{arm}-{point.point.label}".replace(".", "-") if multi else arm


def _evidence(run: str, digest: str) -> tuple[MakeResult, MakeQuantity]:
    """Result and quantity makers whose evidence is the arm folder ``run`` and its ``requests.jsonl`` hash."""
    def result(metric: str, stat: str, value: Any, unit: str) -> Result:
        return Result.model_validate({"metric": metric, "stat": stat, "value": value, "unit": unit,
                                      "provenance": "measured", "run": run, "sha256": digest})

    def quantity(value: float, unit: str) -> Quantity:
        return Quantity(value=value, unit=unit, provenance="measured", run=run, sha256=digest)

    return result, quantity


def build_record(config: RunConfig, points: list[PointResult], summaries: list[dict[str, Summary]],
                 target: RecordTarget, *, complete: bool = True) -> Benchmark:
    """The ``Benchmark`` record of a run (folders must already be under ``target.ledger_root``); results and
    acceptance through the mapping ``import benchledger-run`` shares (``importers/benchledger_run.py``)."""
    root = target.ledger_root.resolve()
    multi = len(points) > 1
    arms: list[Arm] = []
    base_name = config.arms[0].name
    for point, point_summaries in zip(points, summaries, strict=True):
        compared = _comparison(point.folder)
        for spec in config.arms:
            folder = (point.folder / spec.name).resolve()
            try:
                rel = folder.relative_to(root).as_posix()
            except ValueError:
                raise BenchError(f"run folder {folder} is not inside the ledger {root}") from None
            digest = sha256_file(folder / REQUESTS_FILE)
            summary = point_summaries[spec.name].flat()
            make_result, make_quantity = _evidence(rel, digest)
            results = summary_results(summary, make_result)
            load = WorkloadOverride(concurrency=point.point.concurrency) if point.point.concurrency else \
                WorkloadOverride(request_rate=point.point.rate)
            arm = Arm(
                name=arm_name(spec.name, point, multi),
                baseline=arm_name(base_name, point, multi) if spec.name != base_name else None,
                workload=load if multi else None,
                results=results,
                note="; ".join(summary.get("warnings") or []),
                paired_speedups=comparison_speedups(compared.get(spec.name) or {}) if spec.name != base_name else [],
            )
            if spec.speculative:
                arm.speculative = Speculative(method=spec.spec_method or "other", k=spec.spec_k
                                              if spec.spec_k is not None else Unknown(unknown="unchecked"),
                                              config=target.launch_commands.get(spec.name))
                arm.acceptance = summary_acceptance(summary, make_quantity)
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
        complete=complete,
    )


def _comparison(folder: Path) -> dict[str, Any]:
    """Arm name → its entry of the point's ``comparison.json`` (``bench/report.py``); {} when there is none."""
    path = folder / "comparison.json"
    if not path.is_file():
        return {}
    try:
        arms = json.loads(path.read_text(encoding="utf-8")).get("arms")
    except (OSError, ValueError, AttributeError) as exc:
        raise BenchError(f"{path}: unreadable comparison ({exc})") from None
    return arms if isinstance(arms, dict) else {}


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


__all__ = ["RecordTarget", "arm_name", "build_record", "check_target", "place_run_folder"]
