"""The one place the sweep calls the harness (``benchledger.bench``): start engines, run a session, build records.

Everything else in ``benchledger.sweep`` talks to the harness through these functions only, so a change inside
``bench/`` touches this module and nothing else of the sweep.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchledger.errors import SweepError, SweepInterrupted
from benchledger.sweep.plan import ClientPoint
from benchledger.sweep.spec import ClientGrid

ProgressFn = Callable[[dict[str, Any]], None]
DEMO_MODEL_FILES = ("target.gguf", "draft.gguf")


@dataclass
class Engine:
    """A server the sweep started (``stop()`` ends it)."""

    cell: str
    url: str
    command: str
    handle: Any

    @property
    def info(self) -> dict[str, Any]:
        h = self.handle
        return {"ready_s": h.ready_s, "version": h.info.get("version"), "version_source": h.info.get("version_source"),
                "log": h.log_path.name}

    def stop(self) -> None:
        self.handle.stop()  # (the engine log is masked as it is written: ``bench.launch.EngineLog``)


def free_port() -> int:
    from benchledger.bench.demo import free_port as _free_port

    return _free_port()


def start_engine(cell: str, command: str, env: dict[str, str], port: int, log_dir: Path, timeout: float) -> Engine:
    """Start one server (``env`` goes in front as ``env K=V …`` so the recorded command is complete).

    SIGINT/SIGTERM while it starts cancel the wait (the harness stops the engine) and raise ``SweepInterrupted``;
    the caller re-arms its own signal handlers afterwards.
    """
    from benchledger.bench.launch import launch
    from benchledger.bench.redact import launch_secrets, redact

    if env:
        command = "env " + " ".join(shlex.quote(f"{k}={v}") for k, v in sorted(env.items())) + " " + command
    url = f"http://127.0.0.1:{port}"
    handle = _cancellable(launch(cell, command, url, log_dir, timeout=timeout))
    return Engine(cell=cell, url=url, command=redact(command, launch_secrets(command)), handle=handle)


def _cancellable(coro: Any) -> Any:
    """Run ``coro`` with SIGINT/SIGTERM cancelling it (the harness cleans up on cancel) → ``SweepInterrupted``."""
    import asyncio
    import contextlib
    import signal

    async def main() -> Any:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        received: list[int] = []

        def on(sig: int) -> None:
            received.append(sig)
            if task is not None:
                task.cancel()

        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, on, sig)
        try:
            return await coro
        except asyncio.CancelledError:
            if received:
                raise SweepInterrupted(f"stopped by signal {signal.Signals(received[0]).name}") from None
            raise
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                    loop.remove_signal_handler(sig)

    return asyncio.run(main())


@dataclass
class SessionOutcome:
    """What one harness session left on disk."""

    point_folders: dict[str, Path]
    prompt_input_tokens: list[int | None]
    prompt_source: list[str]
    interrupted: bool


def run_block(arms: list[tuple[str, str, str | None, int | None]], points: list[ClientPoint], client: ClientGrid,
              served_model: str | None, sweep_dir: Path, out: Path, progress: ProgressFn | None) -> SessionOutcome:
    """One session: ``arms`` = (cell name, url, spec method, spec k), baseline first; one input × output size.

    A signal raises ``SweepInterrupted`` (before the run) or returns ``interrupted``; a run the harness says must not
    pass as a measurement (an arm with no completed request, too many errors) raises ``SweepError``.
    """
    from benchledger.bench.load import LoadPoint
    from benchledger.bench.run import ArmSpec, RunConfig
    from benchledger.bench.session import run_session
    from benchledger.bench.workload import RequestSpec, load_prompt_file, synthetic_prompts
    from benchledger.errors import BenchInterrupted

    first = points[0]
    specs = [ArmSpec(name=name, url=url, spec_method=method, spec_k=k) for name, url, method, k in arms]
    request = RequestSpec(endpoint=client.endpoint, model=served_model, output_tokens=first.output_tokens,
                          temperature=client.temperature, seed=client.seed, ignore_eos=client.ignore_eos)
    loads = [LoadPoint(concurrency=p.concurrency) if p.concurrency is not None else
             LoadPoint(rate=p.request_rate, arrival=client.arrival) for p in points]
    total = client.num_prompts + client.warmup
    config = RunConfig(arms=specs, request=request, points=loads, prompts=[], num_prompts=client.num_prompts, out=out,
                       max_seconds=client.max_seconds, warmup=client.warmup, timeout=client.timeout_s,
                       round_size=client.round_size, seed=client.seed, synthetic=client.prompts == "synthetic")
    if client.prompts == "synthetic":
        size = first.input_tokens
        config.prompt_builder = lambda url, aux: synthetic_prompts(total, size, url, served_model, client.seed, aux)
    else:
        path = Path(client.prompts)
        config.prompts = load_prompt_file(path if path.is_absolute() else sweep_dir / path)
    try:
        result = run_session(config, progress)
    except BenchInterrupted as exc:
        raise SweepInterrupted(str(exc)) from None
    interrupted = result.interrupted or len(result.points) < len(loads)
    problems = [] if interrupted else result.problems()
    if problems:
        raise SweepError("not a measurement: " + "; ".join(problems))
    folders = {o["comparison"]["load_point"]: p.folder for o, p in zip(result.outputs, result.points, strict=True)}
    return SessionOutcome(point_folders=folders, prompt_input_tokens=[p.input_tokens for p in config.prompts],
                          prompt_source=sorted({p.input_tokens_source for p in config.prompts}),
                          interrupted=interrupted)


def requests_digest(folder: Path) -> tuple[str, str] | None:
    """(relative name, sha256) of an arm folder's ``requests.jsonl``."""
    from benchledger.bench.outputs import REQUESTS_FILE, sha256_file

    path = folder / REQUESTS_FILE
    return (path.as_posix(), sha256_file(path)) if path.exists() else None


def write_demo_models(folder: Path) -> list[Path]:
    """The tiny llama target + draft of the sweep demo (skipped when both exist; written atomically)."""
    from benchledger.bench.demo import DEMO_DEEP_SCALE
    from benchledger.bench.tinymodels import write_target_and_draft

    targets = [folder / n for n in DEMO_MODEL_FILES]
    if all(t.exists() for t in targets):
        return targets
    import shutil
    import tempfile

    folder.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".models-", dir=folder))
    try:
        pair = write_target_and_draft(tmp, shape=demo_sweep_shape(), deep_scale=DEMO_DEEP_SCALE)
        for src, dest in ((pair.target, targets[0]), (pair.draft, targets[1])):
            Path(src).replace(dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return targets


def demo_sweep_shape() -> Any:
    """The demo sweep's model shape: small enough for a few requests per cell on two CPU cores."""
    from benchledger.bench.tinymodels import TinyModelShape

    return TinyModelShape(n_embd=128, n_layers=4, n_ff=256)


def ensure_demo_references(ledger: Path) -> list[str]:
    """Write the demo's reference records (model, engine, accelerator, format) when the ledger lacks them."""
    from benchledger.bench.demo import ensure_reference_records

    return ensure_reference_records(ledger, demo_sweep_shape())


DEMO_IDS = {"model": "tiny-llama-random", "engine": "llama-cpp", "accelerator": "cpu-host", "weights": "f32"}


def check_demo_ids() -> None:
    """The demo ids the example file uses are the harness demo's (fails loudly if ``bench.demo`` renames them)."""
    from benchledger.bench import demo

    actual = {"model": demo.MODEL_ID, "engine": demo.ENGINE_ID, "accelerator": demo.ACCEL_ID, "weights": demo.FORMAT_ID}
    if actual != DEMO_IDS:
        raise SweepError(f"the harness demo's ids changed ({actual}); update benchledger.sweep.harness.DEMO_IDS")


@dataclass
class RecordSession:
    """One session of a committed group, as the record needs it (folders already inside the ledger)."""

    arms: list[tuple[str, str | None, int | None]]
    """(cell name, spec method, spec k), baseline first."""
    points: list[ClientPoint]
    point_folders: dict[str, Path]
    prompt_input_tokens: list[int | None]
    prompt_source: list[str]
    suffix: str
    baseline_cell: str


def build_group_record(sessions: list[RecordSession], client: ClientGrid, served_model: str | None,
                       ledger_root: Path, record_id: str, ids: dict[str, Any], title: str, body: str,
                       commands: dict[str, str], versions: dict[str, str | None], vary_sizes: bool) -> Any:
    """One ``Benchmark`` with every session's arms (``bench.record.build_record`` maps each session).

    Arm names get the session's ``suffix`` (input/output size, repeat) when the grid has several; an arm whose
    session had no baseline (alternating mode runs one cell per session) names the baseline cell's arm of the
    same point and suffix.
    """
    from benchledger.bench.load import LoadPoint
    from benchledger.bench.record import RecordTarget, arm_name, build_record
    from benchledger.bench.run import ArmSpec, PointResult, RunConfig
    from benchledger.bench.workload import Prompt, RequestSpec
    from benchledger.schema import Parallelism, Unknown, WorkloadOverride

    def cond(value: Any, what: str) -> Any:
        return Unknown(unknown="unchecked", note=f"{what} not stated in the sweep file") if value is None else value

    par = {k: ids[k] for k in ("tp", "pp", "ep", "dp") if ids.get(k) is not None}
    target = RecordTarget(
        ledger_root=ledger_root, record_id=record_id, model=ids["model"], engine=ids["engine"],
        accelerator=ids["accelerator"], title=title, accelerator_count=cond(ids.get("accelerator_count"), "accelerator count"),
        weights=cond(ids.get("weights"), "weight format"),
        parallelism=Parallelism(**par) if par else Parallelism(tp=Unknown(unknown="unchecked",
                                                                          note="parallelism not stated in the sweep file")),
        engine_versions=dict(versions), launch_commands=dict(commands), body=body)
    merged: Any = None
    for s in sessions:
        first = s.points[0]
        loads = [LoadPoint(concurrency=p.concurrency) if p.concurrency is not None else
                 LoadPoint(rate=p.request_rate, arrival=client.arrival) for p in s.points]
        request = RequestSpec(endpoint=client.endpoint, model=served_model, output_tokens=first.output_tokens,
                              temperature=client.temperature, seed=client.seed, ignore_eos=client.ignore_eos)
        prompts = [Prompt(text="", input_tokens=n, input_tokens_source=",".join(s.prompt_source))
                   for n in s.prompt_input_tokens]
        config = RunConfig(arms=[ArmSpec(name=n, url="", spec_method=m, spec_k=k) for n, m, k in s.arms],
                           request=request, points=loads, prompts=prompts, num_prompts=client.num_prompts,
                           out=ledger_root, max_seconds=client.max_seconds, warmup=client.warmup,
                           synthetic=client.prompts == "synthetic")
        results = [PointResult(point=load, folder=s.point_folders[load.label], records={}, complete_rounds={},
                               stopped_by="", scrapes={}) for load in loads]
        summaries = [{n: _read_summary(r.folder / n / "summary.json") for n, _, _ in s.arms} for r in results]
        record = build_record(config, results, summaries, target)
        multi = len(loads) > 1
        for arm, (load_result, (_cell, method, _k)) in zip(
                record.arms, ((r, a) for r in results for a in s.arms), strict=True):
            if method is not None and arm.baseline is None:
                arm.baseline = arm_name(s.baseline_cell, load_result, multi)
            arm.name += s.suffix
            if arm.baseline is not None:
                arm.baseline += s.suffix
            if vary_sizes:
                fields = arm.workload.model_dump(exclude_unset=True) if arm.workload is not None else {}
                fields["input_tokens"] = record.workload.input_tokens
                fields["output_tokens"] = record.workload.output_tokens
                arm.workload = WorkloadOverride.model_validate(fields)
        if merged is None:
            merged = record
            if ids.get("kv_cache"):
                merged.subject.kv_cache = ids["kv_cache"]
            if vary_sizes:
                merged.workload.input_tokens = Unknown(unknown="unchecked", note="varies by arm (see each arm)")
                merged.workload.output_tokens = Unknown(unknown="unchecked", note="varies by arm (see each arm)")
        else:
            merged.arms.extend(record.arms)
    return merged


def _read_summary(path: Path) -> Any:
    from benchledger.bench.rundata import Summary

    try:
        return Summary.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SweepError(f"{path}: unreadable summary: {exc}") from None


def place_run(src: Path, ledger_root: Path, record_id: str) -> Path:
    """Copy a committed group folder to ``<ledger>/runs/<record_id>`` atomically (refuses an existing one)."""
    from benchledger.bench.record import place_run_folder

    return place_run_folder(src, ledger_root, record_id)


__all__ = [
    "DEMO_IDS",
    "Engine",
    "RecordSession",
    "SessionOutcome",
    "build_group_record",
    "check_demo_ids",
    "ensure_demo_references",
    "free_port",
    "place_run",
    "requests_digest",
    "run_block",
    "start_engine",
    "write_demo_models",
]
