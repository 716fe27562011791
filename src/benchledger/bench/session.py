"""One ``benchledger bench`` session end to end: launch engines, run, write outputs, optionally record.

SIGINT during the run stops dispatching, interrupts in-flight requests (each recorded with the reason), writes
every summary marked ``complete: false`` and the top-level ``comparison.json``, then stops launched engines.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import os
import platform
import shutil
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchledger.bench.launch import Launched, engine_info, launch
from benchledger.bench.outputs import write_json
from benchledger.bench.record import RecordTarget, build_record
from benchledger.bench.redact import redact_file, redact_value
from benchledger.bench.report import write_point_outputs
from benchledger.bench.run import PointResult, Progress, RunConfig, Runner


@dataclass
class SessionResult:
    """What a session produced."""

    out: Path
    points: list[PointResult]
    outputs: list[dict[str, Any]]
    interrupted: bool
    engines: dict[str, dict[str, Any]] = field(default_factory=dict)
    record_path: Path | None = None


def new_run_id(prefix: str = "run") -> str:
    """``<prefix>-YYYYMMDD-HHMMSS`` (UTC), a ledger-safe slug."""
    return f"{prefix}-{dt.datetime.now(dt.UTC).strftime('%Y%m%d-%H%M%S')}"


def environment(config: RunConfig, engines: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``environment.json``: client host, software, exact command line, engines (never the API key)."""
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
        "prompts": {"count": len(config.prompts), "input_tokens_source": sorted({p.input_tokens_source for p in config.prompts})},
        "points": [p.label for p in config.points],
        "num_prompts": config.num_prompts,
        "max_seconds": config.max_seconds,
        "warmup": config.warmup,
        "timeout": config.timeout,
        "engines": engines,
    }, [config.api_key])
    return env


def run_session(config: RunConfig, progress: Progress | None = None, *, launch_timeout: float = 300.0,
                record: RecordTarget | None = None) -> SessionResult:
    """Launch (if asked), run every load point, write all outputs; record into the ledger when ``record``."""
    config.out.mkdir(parents=True, exist_ok=True)
    launched: list[Launched] = []
    engines: dict[str, dict[str, Any]] = {}
    try:
        for arm in config.arms:
            if arm.launch:
                eng = launch(arm.name, arm.launch, arm.url, config.out, timeout=launch_timeout)
                launched.append(eng)
                engines[arm.name] = {**eng.info, "command": eng.command, "ready_s": eng.ready_s,
                                     "log": eng.log_path.name}
            else:
                engines[arm.name] = engine_info(arm.url)
        if config.prompt_builder is not None and not config.prompts:
            config.prompts = config.prompt_builder(config.arms[0].url)
        write_json(config.out / "environment.json", environment(config, engines))
        runner = Runner(config, progress)
        points = _run_with_sigint(runner)
        outputs = [write_point_outputs(p, config) for p in points]
        if len(points) > 1:
            write_json(config.out / "comparison.json", {"points": [o["comparison"] for o in outputs]})
    finally:
        for eng in launched:
            eng.stop()
            redact_file(eng.log_path, [config.api_key])
    engines = redact_value(engines, [config.api_key])
    result = SessionResult(out=config.out, points=points, outputs=outputs, interrupted=runner.stopping,
                           engines=engines)
    if record is not None and points:
        result.record_path = write_ledger_record(config, result, record)
    return result


def _run_with_sigint(runner: Runner) -> list[PointResult]:
    async def main() -> list[PointResult]:
        loop = asyncio.get_running_loop()
        try:
            loop.add_signal_handler(signal.SIGINT, runner.stop)
            loop.add_signal_handler(signal.SIGTERM, runner.stop)
        except (NotImplementedError, RuntimeError):  # not the main thread
            pass
        try:
            return await runner.run()
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(sig)

    return asyncio.run(main())


def write_ledger_record(config: RunConfig, result: SessionResult, target: RecordTarget) -> Path:
    """Place the run under ``<ledger>/runs/<run-id>/`` (copying when it ran elsewhere) and write the record."""
    from benchledger.ledger.io import write_record

    root = target.ledger_root.resolve()
    out = result.out.resolve()
    if not out.is_relative_to(root):
        dest = root / "runs" / target.record_id
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(out, dest)
        for p in result.points:
            p.folder = dest / p.folder.resolve().relative_to(out)
        result.out = dest
    for name, info in result.engines.items():
        target.engine_versions.setdefault(name, info.get("version"))
        if info.get("command"):
            target.launch_commands.setdefault(name, info["command"])
    summaries = [o["summaries"] for o in result.outputs]
    record = build_record(config, result.points, summaries, target)
    return write_record(root, record)


__all__ = ["SessionResult", "environment", "new_run_id", "run_session", "write_ledger_record"]
