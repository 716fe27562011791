"""One ``benchledger bench`` session end to end: launch engines, build prompts, test, run, write, record.

Every phase obeys SIGINT/SIGTERM: during launch, health waits, prompt building and the test request the
current wait is cancelled at once (``BenchInterrupted``); during the run, dispatching stops, in-flight requests
and scrapes are interrupted (each request recorded with the reason) and every summary is still written, marked
``complete: false``, with the top-level ``comparison.json``; writing outputs and the record runs to its end
(the copy into the ledger goes to a temporary sibling and is renamed into place, so it is whole or absent).
Launched engines are stopped with their process group in every case.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import platform
import secrets
import signal
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchledger.bench import eventloop
from benchledger.bench.client import stream_request
from benchledger.bench.launch import STOP_GRACE_S, Launched, engine_info, launch
from benchledger.bench.outputs import write_json
from benchledger.bench.record import RecordTarget, build_record, place_run_folder
from benchledger.bench.redact import launch_secrets, redact, redact_value
from benchledger.bench.report import write_point_outputs
from benchledger.bench.response import parse_stream
from benchledger.bench.run import PointResult, Progress, RunConfig, Runner
from benchledger.bench.rundata import Summary
from benchledger.bench.workload import ENDPOINT_PATHS
from benchledger.errors import BenchError, BenchInterrupted

DEFAULT_MAX_ERROR_RATE = 0.10
EXIT_RUN_FAILED = 3
"""Exit status of ``bench`` when an arm completed nothing or failed more than ``--max-error-rate``."""
EXIT_INTERRUPTED = BenchInterrupted.exit_code


@dataclass
class SessionResult:
    """What a session produced."""

    out: Path
    points: list[PointResult]
    outputs: list[dict[str, Any]]
    interrupted: bool
    engines: dict[str, dict[str, Any]] = field(default_factory=dict)
    record_path: Path | None = None
    record_skipped: str | None = None
    """Why ``--record`` wrote no record (an interrupted run without ``--record-incomplete``)."""

    def summaries(self) -> list[tuple[str, Summary]]:
        """(load point label, summary) of every arm at every point."""
        return [(o["comparison"]["load_point"], s) for o in self.outputs for s in o["summaries"].values()]

    def problems(self, max_error_rate: float = DEFAULT_MAX_ERROR_RATE) -> list[str]:
        """Why this run must not pass as a measurement: an arm with no completed request, or an error rate
        above ``max_error_rate``; each line names the point, the arm and its top error reasons."""
        out = []
        for point, s in self.summaries():
            rate = s.error_rate
            if s.stopped_by == "error":
                why = next((w for w in s.warnings if w.startswith("run error")), "run error")
            elif s.completed == 0:
                why = "no completed request"
            elif rate is not None and rate > max_error_rate:
                why = f"error rate {rate:.1%} > --max-error-rate {max_error_rate:.1%}"
            else:
                continue
            top = sorted(s.errors_by_reason.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
            reasons = "; ".join(f"{n}× {reason}" for reason, n in top) or "no request was sent"
            out.append(f"{point} {s.arm}: {why} (top errors: {reasons})")
        return out


def new_run_id(prefix: str = "run") -> str:
    """``<prefix>-YYYYMMDD-HHMMSS-ffffff-xxxx`` (UTC, microseconds, random suffix): unique, ledger-safe slug."""
    return f"{prefix}-{dt.datetime.now(dt.UTC).strftime('%Y%m%d-%H%M%S-%f')}-{secrets.token_hex(2)}"


def run_secrets(config: RunConfig) -> list[str]:
    """Every secret value of this run: the API key and the values of credential flags in launch commands."""
    found = [config.api_key] if config.api_key else []
    for arm in config.arms:
        if arm.launch:
            found += launch_secrets(arm.launch)
    return found


def environment(config: RunConfig, engines: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``environment.json``: client host, software, exact command line, engines (secrets masked)."""
    from benchledger import __version__ as version

    env: dict[str, Any] = redact_value({
        "benchledger_version": version,
        "python": sys.version,
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "argv": sys.argv,
        "started_utc": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "clock": "time.perf_counter (monotonic, high resolution)",
        "api_key": "set (not recorded)" if config.api_key else "none",
        "arms": [{"name": a.name, "url": a.url, "metrics_url": a.metrics, "speculative": a.spec_method,
                  "k": a.spec_k, "launch": a.launch} for a in config.arms],
        "request": dict(config.request.__dict__),
        "prompts": {"count": len(config.prompts),
                    "input_tokens_source": sorted({p.input_tokens_source for p in config.prompts}),
                    "notes": sorted({p.note for p in config.prompts if p.note})},
        "points": [p.label for p in config.points],
        "num_prompts": config.num_prompts,
        "max_seconds": config.max_seconds,
        "warmup": config.warmup,
        "timeout": config.timeout,
        "aux_deadline_s": config.aux_deadline,
        "engines": engines,
    }, run_secrets(config))
    return env


def run_session(config: RunConfig, progress: Progress | None = None, *, launch_timeout: float = 300.0,
                record: RecordTarget | None = None) -> SessionResult:
    """Launch (if asked), run every load point, write all outputs; record into the ledger when ``record``.

    Raises ``BenchInterrupted`` for a signal before the run started, ``BenchError`` for a failed test request.
    """
    return eventloop.run(_session(config, progress, launch_timeout, record), config.event_loop)


class _Signals:
    """SIGINT/SIGTERM → stop the runner when it runs, else cancel the session's current wait; while the engines
    stop, SIGKILL what is left of them now."""

    def __init__(self, runner: Runner) -> None:
        self.runner = runner
        self.phase = "setup"
        self.received: int | None = None
        self.task = asyncio.current_task()
        self.loop = asyncio.get_running_loop()
        self.kill_now = threading.Event()

    def __enter__(self) -> _Signals:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not the main thread
                self.loop.add_signal_handler(sig, self._on, sig)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                self.loop.remove_signal_handler(sig)

    def _on(self, sig: int) -> None:
        self.received = sig
        if self.phase == "run":
            self.runner.stop()
        elif self.phase == "setup" and self.task is not None:
            self.task.cancel()
        elif self.phase == "stopping engines":
            self.kill_now.set()

    async def stop_engines(self, launched: list[Launched]) -> None:
        """Stop every launched engine group (SIGTERM, SIGKILL after the grace period) in a thread, so a signal
        meanwhile is seen at once: it SIGKILLs what is left instead of waiting out the grace period. Returns
        only when every engine is stopped, whatever arrives meanwhile. (Each log was masked as it was written.)"""
        self.phase = "stopping engines"
        for eng in launched:
            done = asyncio.ensure_future(asyncio.to_thread(eng.stop, STOP_GRACE_S, self.kill_now))
            while not done.done():
                try:
                    await asyncio.shield(done)
                except asyncio.CancelledError:  # (the session itself cancelled: the engine is stopped first)
                    self.kill_now.set()


async def _session(config: RunConfig, progress: Progress | None, launch_timeout: float,
                   record: RecordTarget | None) -> SessionResult:
    config.out.mkdir(parents=True, exist_ok=True)
    launched: list[Launched] = []
    engines: dict[str, dict[str, Any]] = {}
    hidden = run_secrets(config)
    runner = Runner(config, progress)
    points: list[PointResult] = []
    with _Signals(runner) as signals:
        try:
            try:
                await _setup(config, launched, engines, launch_timeout)
            except (asyncio.CancelledError, BenchError):
                if signals.received is None:
                    raise
                raise BenchInterrupted("interrupted before the run started (nothing was measured)") from None
            write_json(config.out / "environment.json", environment(config, engines))
            signals.phase = "run"
            if signals.received is None:
                points = await runner.run()
            signals.phase = "outputs"
            outputs = [write_point_outputs(p, config) for p in points]
            if len(points) > 1:
                write_json(config.out / "comparison.json", {"points": [o["comparison"] for o in outputs]})
        finally:
            await signals.stop_engines(launched)
        engines = redact_value(engines, hidden)
        interrupted = runner.stopping or signals.received is not None
        result = SessionResult(out=config.out, points=points, outputs=outputs, interrupted=interrupted,
                               engines=engines)
        if record is not None and points:
            if interrupted and not record.record_incomplete:
                result.record_skipped = ("interrupted: not recorded (--record-incomplete records it as a "
                                         "complete: false record)")
            else:
                result.record_path = write_ledger_record(config, result, record)
    return result


async def _setup(config: RunConfig, launched: list[Launched], engines: dict[str, dict[str, Any]],
                 launch_timeout: float) -> None:
    """Launch engines, learn versions, build prompts, send the test request (each wait cancellable)."""
    aux = config.aux()
    hidden = run_secrets(config)
    for arm in config.arms:
        if arm.launch:
            try:
                eng = await launch(arm.name, arm.launch, arm.url, config.out, timeout=launch_timeout, http=aux,
                                   secrets=hidden)
            except BenchError as exc:
                raise BenchError(redact(str(exc), hidden)) from None
            launched.append(eng)
            engines[arm.name] = {**eng.info, "command": redact(eng.command, hidden), "ready_s": eng.ready_s,
                                 "log": eng.log_path.name}
        else:
            engines[arm.name] = await engine_info(arm.url, aux)
    if config.prompt_builder is not None and not config.prompts:
        try:
            async with asyncio.timeout(config.prompt_deadline):
                config.prompts = await config.prompt_builder(config.arms[0].url, aux)
        except TimeoutError:
            raise BenchError(f"building the prompts did not finish within the prompt deadline "
                             f"({config.prompt_deadline:g} s; the server's /tokenize is slow or the prompts many): "
                             "raise --prompt-deadline, lower --num-prompts, or give --prompts") from None
    if not config.prompts:
        raise BenchError("no prompts to send")
    if config.test_request:
        for arm in config.arms:
            await test_request(config, arm.name)


async def test_request(config: RunConfig, arm_name: str) -> None:
    """One request to ``arm_name`` before the run; BenchError with the server's reason when it fails."""
    arm = next(a for a in config.arms if a.name == arm_name)
    payload = config.request.payload(config.prompts[0], config.request.seed)
    payload["max_tokens"] = min(config.request.output_tokens, 16)
    payload.pop("min_tokens", None)
    raw = await stream_request(arm.url, ENDPOINT_PATHS[config.request.endpoint], payload,
                               timeout=min(config.timeout, 120.0), api_key=config.api_key)
    rec = parse_stream(raw, raw.t_start)
    if not rec.ok:
        reason = redact(str(rec.error), run_secrets(config))
        raise BenchError(f"test request to arm {arm_name!r} ({arm.url}) failed: {reason} "
                         "(nothing was measured; --no-test-request skips this check)")


def write_ledger_record(config: RunConfig, result: SessionResult, target: RecordTarget) -> Path:
    """Place the run under ``<ledger>/runs/<record-id>/`` (an atomic copy when it ran elsewhere) and write the
    record (``complete: false`` for an interrupted run)."""
    from benchledger.ledger.io import write_record

    root = target.ledger_root.resolve()
    out = result.out.resolve()
    if not out.is_relative_to(root):
        dest = place_run_folder(out, root, target.record_id, overwrite=target.overwrite)
        for p in result.points:
            p.folder = dest / p.folder.resolve().relative_to(out)
        result.out = dest
    for name, info in result.engines.items():
        target.engine_versions.setdefault(name, info.get("version"))
        if info.get("command"):
            target.launch_commands.setdefault(name, info["command"])
    summaries = [o["summaries"] for o in result.outputs]
    record = build_record(config, result.points, summaries, target, complete=not result.interrupted)
    return write_record(root, record)


__all__ = ["DEFAULT_MAX_ERROR_RATE", "EXIT_INTERRUPTED", "EXIT_RUN_FAILED", "SessionResult", "environment", "new_run_id", "run_secrets", "run_session", "test_request",
           "write_ledger_record"]
