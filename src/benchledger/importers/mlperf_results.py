"""``mlperf-results``: an MLPerf Inference results repository (``inference_results_vX.Y``) at a pinned commit.

Read from a stored snapshot (``git_snapshot``; ``<dir>@<commit>`` pins a commit other than HEAD), never
downloaded; a copy of the repository kept by another owner than MLCommons is named as such in each source. Every LLM benchmark (``mlperf_catalog``) of
every system becomes one experiment whose arms are its scenarios; each ``(division, submitter, system)`` becomes
one source storing, whole and byte for byte (``stored_files``), the files its numbers come from: the system
description, and per benchmark × scenario the performance ``mlperf_log_summary.txt`` and the measurements JSON
(``_measurements``: the round's layout).
Every number is quoted with its line; each file's git blob id and sha256 stand in the excerpt.

Mapping (foreign field → ledger field, or why not):

| MLPerf | ledger |
|---|---|
| path ``<division>/<submitter>/results/<system>/<benchmark>/<Scenario>/`` | record id, title, arm name (scenario) |
| summary ``Scenario`` Offline / Server / Interactive / SingleStream | ``workload.scenario`` offline / request-rate / request-rate / per-request |
| ``Result is : VALID`` | only VALID runs import; an INVALID one is named in the source |
| one summary file (same git blob) under two benchmarks (``-99`` and ``-99.9``) | one arm, of the first (``-99.9``); the other is named in the arm note and the source (the same run, not two measurements) |
| ``Tokens per second`` (Offline), ``Completed tokens per second`` (Server, Interactive) | ``output_throughput`` tok/s |
| ``Samples per second``, ``Completed samples per second`` | ``request_throughput`` req/s (one sample = one request) |
| ``Tokens per second (inferred)`` (GPT-J) | not imported: LoadGen infers it from a fixed tokens-per-sample, not measured |
| ``… percentile first token latency (ns)``, ``Mean First Token latency (ns)`` | ``ttft`` p50/p99/mean, ns |
| ``… percentile time to output token (ns)``, ``Mean Time to Output Token (ns)`` | ``tpot`` p50/p99/mean, ns |
| ``90.00 percentile latency (ns)`` (SingleStream) | ``e2e_latency`` p90, ns |
| ``ttft_latency (ns)``, ``tpot_latency (ns)`` (Server, Interactive) | ``workload.ttft_limit_ns``, ``tpot_limit_ns`` (p99 limits) |
| ``target_qps`` (Server, Interactive) | ``workload.request_rate`` (the scheduled Poisson rate) |
| ``min_duration (ms)``, seeds, ``samples_per_query`` | not mapped (LoadGen run rules; in the stored file) |
| benchmark folder (``mlperf_catalog.MODELS``); a system named ``…Pruned`` | ``subject.model``; a pruned system's model is the placeholder, the stated text saying why (``mlperf_catalog.model_of``) |
| system ``accelerator_model_name`` | ``subject.accelerator`` via ``mlperf_catalog.ACCELERATORS`` (else placeholder) |
| ``accelerator_model_name`` a multi-GPU board (``mlperf_catalog.BOARDS``) | ``subject.accelerator`` the board's GPU, ``accelerator_count`` derived: GPUs per board × ``accelerators_per_node``, the note naming the board's source (reference data, not listed in ``sources``: it would join unrelated campaigns, ``perfmodel/campaigns.py``) |
| ``accelerators_per_node`` (one node) | ``subject.accelerator_count``; several nodes → ``unknown`` (a condition cannot carry the product) |
| ``framework`` | ``subject.engine`` (``mlperf_catalog.engine_of``) and ``subject.engine_version`` (the whole text) |
| ``host_processor_model_name`` | ``subject.host`` |
| measurements ``weight_data_types`` | ``subject.weights`` via ``mlperf_catalog.FORMATS`` (else ``unknown`` with the text) |
| ``weight_data_types`` fp16/bf16/fp32 and ``weight_transformations`` naming quantization | ``subject.weights`` ``unknown`` quoting both (``mlperf_system.quantized_note``): the file says the weights were quantized |
| input/output lengths, batch, concurrency, warmup, KV format, parallelism | ``unknown: source_omits`` (set by the benchmark's dataset or the submitter; not in these files) |
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from benchledger.errors import ImportFormatError
from benchledger.importers import mlperf_catalog as catalog
from benchledger.importers.common import (
    fill_omitted,
    hoist_shared,
    known,
    omitted,
    quoted_result,
    record_id,
    slugify,
)
from benchledger.importers.context import ImportContext
from benchledger.importers.git_snapshot import Snapshot, StoredFile
from benchledger.importers.mlperf_logs import SummaryLog
from benchledger.importers.mlperf_system import SystemFile, weights_condition
from benchledger.importers.references import PLACEHOLDER_IDS
from benchledger.importers.stored_files import storable, stored_block
from benchledger.schema import (
    Arm,
    Benchmark,
    HistoryEntry,
    Result,
    Source,
    Subject,
    Workload,
    WorkloadOverride,
)
from benchledger.schema.benchmark import Scenario
from benchledger.schema.common import RecordKind

FORMAT = "mlperf-results"
OWNER = "mlcommons"
"""The GitHub owner of MLCommons' own results repositories; any other owner's copy is named as a copy."""
SUMMARY = "performance/run_1/mlperf_log_summary.txt"
SCENARIOS: dict[str, Scenario] = {"offline": "offline", "server": "request-rate", "interactive": "request-rate",
                                  "singlestream": "per-request", "multistream": "per-request"}
_LATENCY = (("ttft", "first token latency", "Mean First Token latency (ns)"),
            ("tpot", "time to output token", "Mean Time to Output Token (ns)"))


@dataclass
class Run:
    """One scenario of one benchmark of one system: its summary path and measurements JSON path."""

    benchmark: str
    scenario: str
    summary: str
    measurements: str | None
    also: list[str] = field(default_factory=list)
    """Other benchmarks this same summary file (same git blob) was submitted for."""


@dataclass
class System:
    """One ``(division, submitter, system)`` with its LLM runs."""

    division: str
    submitter: str
    name: str
    runs: list[Run] = field(default_factory=list)

    @property
    def system_json(self) -> str:
        return f"{self.division}/{self.submitter}/systems/{self.name}.json"


def build_snapshots(paths: list[Path], ctx: ImportContext) -> None:
    """Add every LLM experiment of each snapshot, and one source per system (see the module docstring)."""
    for path in paths:
        snap = Snapshot.open(path)
        systems = _systems(snap)
        if not systems:
            raise ImportFormatError(path, SUMMARY, f"no LLM performance summaries at commit {snap.commit}")
        for system in systems:
            _import_system(snap, system, ctx)


def _systems(snap: Snapshot) -> list[System]:
    found: dict[tuple[str, str, str], System] = {}
    for path in sorted(snap.blobs):
        parts = path.split("/")
        if len(parts) != 9 or parts[2] != "results" or "/".join(parts[6:]) != SUMMARY:
            continue
        division, submitter, _, name, bench, scenario = parts[:6]
        if not catalog.LLM_BENCHMARK.match(bench):
            continue
        system = found.setdefault((division, submitter, name), System(division, submitter, name))
        system.runs.append(Run(bench, scenario, path, _measurements(snap, division, submitter, name, bench, scenario)))
    return [s for s in found.values() if s.system_json in snap.blobs]


def _measurements(snap: Snapshot, division: str, submitter: str, name: str, bench: str, scenario: str) -> str | None:
    """The run's measurements JSON: ``<division>/<submitter>/measurements/<system>/<benchmark>/<Scenario>/`` (v4.1,
    v5.1), else ``results/<system>/<benchmark>/<Scenario>/measurements.json`` or its ``measurements/`` folder
    (v6.0). In a folder, the one named after the system, else the only JSON; several others → none."""
    run_dir = f"{division}/{submitter}/results/{name}/{bench}/{scenario}/"
    if run_dir + "measurements.json" in snap.blobs:
        return run_dir + "measurements.json"
    for mdir in (f"{division}/{submitter}/measurements/{name}/{bench}/{scenario}/", run_dir + "measurements/"):
        jsons = [p for p in snap.blobs if p.startswith(mdir) and p.endswith(".json") and "/" not in p[len(mdir):]]
        preferred = [p for p in jsons if p.endswith(f"/{name}.json")]
        if preferred or len(jsons) == 1:
            return preferred[0] if preferred else jsons[0]
    return None


def _short(prefix: str, limit: int = 72) -> str:
    """An id prefix cut to ``limit`` characters at a word boundary (the hash suffix keeps ids unique)."""
    slug = slugify(prefix)
    return slug if len(slug) <= limit else slug[:limit].rsplit("-", 1)[0]


def _round(snap: Snapshot) -> str:
    name = snap.repo_url.rstrip("/").rsplit("/", 1)[-1]
    return name.removeprefix("inference_results_") if name.startswith("inference_results_") else name


def _import_system(snap: Snapshot, system: System, ctx: ImportContext) -> None:
    wanted = [system.system_json] + [p for r in system.runs for p in (r.summary, r.measurements) if p]
    files = snap.read(wanted)
    unstorable = {p: why for p, f in files.items() if (why := storable(f.text)) is not None}
    if system.system_json in unstorable:
        raise ImportFormatError(Path(snap.git_dir) / system.system_json, "", f"cannot be stored whole: "
                                f"{unstorable[system.system_json]}")
    rnd = _round(snap)
    source_id = record_id(_short(f"mlperf-{rnd}-{system.division}-{system.submitter}-{system.name}"), snap.repo_url,
                          system.division, system.submitter, system.name)
    sysfile = SystemFile(files[system.system_json], source_id)
    used: list[StoredFile] = [files[system.system_json]]
    skipped: list[str] = [f"`{p}` not stored ({why})" for p, why in unstorable.items()]
    by_bench: dict[str, list[tuple[Run, SummaryLog]]] = {}
    first: dict[str, Run] = {}
    for run in system.runs:
        summary = files[run.summary]
        if run.summary in unstorable:
            continue
        kept = first.setdefault(summary.blob, run)
        if kept is not run:
            skipped.append(f"`{run.summary}`: the same file (git blob `{summary.blob}`) as `{kept.summary}`, "
                           "one run submitted for both accuracy targets; imported once, as " + kept.benchmark)
            kept.also.append(run.benchmark)
            continue
        log = SummaryLog(summary.text)
        if not log.valid:
            skipped.append(f"`{run.summary}`: result is not VALID")
            continue
        used.append(summary)
        if run.measurements and run.measurements not in unstorable:
            used.append(files[run.measurements])
        by_bench.setdefault(run.benchmark, []).append((run, log))
    for bench, runs in by_bench.items():
        ctx.plan.add(_record(snap, rnd, system, bench, runs, sysfile, files, source_id, ctx))
    ctx.plan.add(_source(snap, rnd, system, used, skipped, source_id, ctx))


def _source(snap: Snapshot, rnd: str, system: System, used: list[StoredFile], skipped: list[str], source_id: str,
            ctx: ImportContext) -> Source:
    intro = (f"MLPerf Inference {rnd} results repository {snap.repo_url} at commit {snap.commit} "
             f"({snap.committed.isoformat()}), {system.division} division, submitter {system.submitter}, system "
             f"{system.name}. The files below are stored whole, byte for byte, each after a line naming its path, "
             "git blob id and sha256.\n" + _copy_note(snap))
    notes = "".join(f"- {s}\n" for s in skipped)
    blocks = "\n".join(stored_block(f.path, f.blob, f.sha256, f.text) for f in used)
    body = intro + (f"\nNot imported:\n\n{notes}" if notes else "") + "\n" + blocks
    return Source(kind="source", id=source_id,
                  title=f"MLPerf Inference {rnd} {system.division}: {system.submitter} {system.name} "
                        "(system description, performance summaries, measurements)",
                  url=snap.url_of(f"{system.division}/{system.submitter}"), source_type="github-file",
                  publisher=f"MLCommons (submitter {system.submitter})", published=snap.committed,
                  retrieved=ctx.options.retrieved,
                  retrieved_via=f"benchledger import {FORMAT} (stored snapshot at commit {snap.commit})",
                  sha256=hashlib.sha256(body.encode("utf-8")).hexdigest(),
                  history=[_created(ctx, "stores the files the imported MLPerf records quote")], body=body)


def _copy_note(snap: Snapshot) -> str:
    """For a repository that is not MLCommons' own (a fork or mirror): say so, and who wrote the pinned commit."""
    owner, _, name = snap.repo_url.removeprefix("https://github.com/").partition("/")
    if owner.lower() == OWNER:
        return ""
    return (f"\nThis copy is not MLCommons' own repository: {snap.repo_url} is a copy of "
            f"https://github.com/{OWNER}/{name}, read at commit {snap.commit}, written by {snap.author}. The files "
            "below are that commit's, byte for byte (each hashes to its git blob id); that they equal MLCommons' "
            "published files rests on the commit being MLCommons' publication commit.\n")


def _created(ctx: ImportContext, why: str) -> HistoryEntry:
    return HistoryEntry(date=ctx.options.retrieved, change=f"created by benchledger import {FORMAT}", why=why,
                        numbers_changed=True)


def _ref(ctx: ImportContext, kind: RecordKind, rid: str | None, stated: str) -> str:
    """``rid`` when the target ledger holds it, else the placeholder (the stated text goes in the body)."""
    if rid is not None and rid in ctx.resolver.records:
        return rid
    ctx.resolver.unmatched.append((kind, stated))
    ctx.resolver.placeholders.add(kind)
    return PLACEHOLDER_IDS[kind]


def _board(ctx: ImportContext, part: str) -> tuple[catalog.Board | None, str]:
    """The multi-GPU board ``part`` names (``mlperf_catalog.BOARDS``) when the target ledger holds its source, and
    the stated text for an unmatched accelerator (naming the missing source when that is why)."""
    stated = f"accelerator_model_name {part!r}"
    board = catalog.BOARDS.get(part)
    if board is None:
        return None, stated
    if board.source not in ctx.resolver.records:
        return None, (f"{stated}, a board of {board.gpus} × {board.accelerator} per source {board.source}, which "
                      "the target ledger lacks")
    return board, stated


def _record(snap: Snapshot, rnd: str, system: System, bench: str, runs: list[tuple[Run, SummaryLog]],
            sysfile: SystemFile, files: dict[str, StoredFile], source_id: str, ctx: ImportContext) -> Benchmark:
    formats = {rid for rid, r in ctx.resolver.records.items() if getattr(r, "kind", None) == "format"}
    arms = [_arm(run, log, bench, files, source_id, formats) for run, log in runs]
    model, stated_model = catalog.model_of(bench, system.name)
    part = sysfile.get("accelerator_model_name")
    board, stated_part = _board(ctx, part)
    subject = Subject(model=_ref(ctx, "model", model, stated_model),
                      engine=_ref(ctx, "engine", catalog.engine_of(sysfile.get("framework")),
                                  f"framework {sysfile.get('framework')!r}"),
                      accelerator=_ref(ctx, "accelerator", board.accelerator if board else
                                       catalog.ACCELERATORS.get(part), stated_part))
    sysfile.fill_subject(subject, board)
    workload = Workload()
    per_w = hoist_shared(arms, workload, "workload")
    per_s = hoist_shared(arms, subject, "subject")
    fill_omitted(workload, f"set by the MLPerf {bench} benchmark's dataset or the submitter; not in the stored "
                 "files", skip=per_w | {"request_rate"})
    fill_omitted(subject, "not in the MLPerf system description or measurements file", skip=per_s)
    notes = [f"Framework as stated: {sysfile.get('framework') or 'not stated'}.",
             "Server/Interactive results hold only under the p99 TTFT/TPOT limits stated in each arm's workload."]
    lines = ctx.resolver.take_unmatched_lines()
    body = (f"Imported by `benchledger import {FORMAT}` from {snap.repo_url} at commit {snap.commit}; every number "
            f"is quoted from a file stored whole in source `{source_id}`, and each arm's note names its file.\n\n"
            + "".join(f"- {n}\n" for n in notes)
            + ("\n## Stated by the input, not yet matched to ledger records\n\n" + "\n".join(lines) + "\n"
               if lines else ""))
    return Benchmark(
        kind="benchmark",
        id=record_id(_short(f"mlperf-{rnd}-{system.submitter}-{bench}-{system.name}"), snap.repo_url, system.division,
                     system.submitter, system.name, bench),
        title=f"MLPerf Inference {rnd} {system.division}: {system.submitter} {system.name}, {bench} "
              f"({', '.join(a.name for a in arms)})",
        measured_by="vendor", subject=subject, workload=workload, arms=arms, sources=[source_id],
        history=[_created(ctx, "bulk import of the MLPerf results repository")], body=body)


def _arm(run: Run, log: SummaryLog, bench: str, files: dict[str, StoredFile], source_id: str,
         formats: set[str]) -> Arm:
    scenario = run.scenario.lower()
    if scenario not in SCENARIOS:
        raise ImportFormatError(run.summary, "Scenario", f"unknown scenario {run.scenario!r}")
    results: list[Result] = []

    def take(metric: str, stat: str, label: str, unit: str, definition: str) -> None:
        line = log.line(label)
        value = line.number() if line else None
        if line is not None and value is not None:
            results.append(quoted_result(metric, stat, value, unit, line.quote, source_id, definition))

    if scenario == "offline":
        if bench not in catalog.SAMPLE_METRIC_BENCHMARKS:
            take("output_throughput", "value", "Tokens per second", "tok/s", "mlperf-result_tokens_per_second")
        take("request_throughput", "value", "Samples per second", "req/s", "mlperf-samples-per-second")
    elif scenario in ("server", "interactive"):
        take("output_throughput", "value", "Completed tokens per second", "tok/s",
             "mlperf-result_completed_tokens_per_second")
        take("request_throughput", "value", "Completed samples per second", "req/s",
             "mlperf-completed-samples-per-second")
    else:
        take("e2e_latency", "p90", "90.00 percentile latency (ns)", "ns", "mlperf-singlestream-latency")
    for metric, label, mean in _LATENCY:
        take(metric, "p50", f"50.00 percentile {label} (ns)", "ns", f"mlperf-{metric}")
        take(metric, "p99", f"99.00 percentile {label} (ns)", "ns", f"mlperf-{metric}")
        take(metric, "mean", mean, "ns", f"mlperf-{metric}")
    if not any(r.metric in ("output_throughput", "request_throughput", "e2e_latency") for r in results):
        raise ImportFormatError(run.summary, "Tokens per second", "a VALID summary without its throughput line")
    workload = WorkloadOverride(scenario=SCENARIOS[scenario])
    if scenario in ("server", "interactive"):
        for name, label in (("ttft_limit_ns", "ttft_latency (ns)"), ("tpot_limit_ns", "tpot_latency (ns)"),
                            ("request_rate", "target_qps")):
            line = log.line(label)
            value = line.number() if line else None
            setattr(workload, name, known(value, line.quote, source_id) if line and value is not None
                    else omitted(f"no {label} line in the summary"))
    subject = weights_condition(files[run.measurements], source_id, formats) if run.measurements else None
    note = f"{run.summary}" + (f"; weights from {run.measurements}" if run.measurements else "")
    if run.also:
        note += f"; the same file is also the {', '.join(run.also)} submission"
    return Arm(name=scenario, workload=workload, subject=subject, results=results, note=note)


__all__ = ["FORMAT", "build_snapshots"]
