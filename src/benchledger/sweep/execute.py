"""Run one group of a sweep inside one allocation: setup, start its server(s), run the client grid, commit.

``concurrent`` pairing starts every server of the group at once and runs each session with all of them as arms
(interleaved rounds); ``alternating`` runs one server at a time, A B A B blocks (one per repeat), restarting the
server between blocks. Every session's arms are cells of this group only, so data of two configurations never
share a folder. A group commits (``SweepDir.commit``) only when every session finished; a stop or a failure
leaves its attempt folder marked failed (or, when the process is killed outright, lost) and the next run redoes
the whole group, because paired arms must share one allocation.
"""

from __future__ import annotations

import contextlib
import shlex
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchledger.errors import BenchledgerError, SweepError, SweepInterrupted
from benchledger.sweep import harness
from benchledger.sweep.plan import Cell, ClientPoint, Group, Plan, cell_config
from benchledger.sweep.store import CellManifest, EngineRun, GroupManifest, SessionRun, SweepDir, utc_now

ProgressFn = harness.ProgressFn


def runtime_values(plan: Plan, out: Path) -> dict[str, str]:
    """The runtime placeholders known before any server starts."""
    return {"python": sys.executable, "out": str(out), "sweep_dir": plan.sweep_dir}


def resolve_vars(plan: Plan, runtime: dict[str, str], axes: dict[str, str]) -> dict[str, str]:
    return {k: v.format_map({**runtime, **axes}) for k, v in plan.sweep.vars.items()}


def resolve_command(plan: Plan, cell: Cell, runtime: dict[str, str]) -> tuple[str, dict[str, str]]:
    """The launch command and env of ``cell`` with every placeholder filled (``runtime`` holds the port)."""
    server = plan.sweep.servers[cell.server]
    ctx: dict[str, str] = {**runtime, "cell": cell.name, **cell.axes}
    ctx.update(resolve_vars(plan, ctx, cell.axes))
    for axis, table in server.per_value.items():
        ctx.update({k: v.format_map(ctx) for k, v in table[cell.axes[axis]].items()})
    return server.launch.format_map(ctx).strip(), {k: v.format_map(ctx) for k, v in server.env.items()}


def resolve_ledger_ids(plan: Plan, cell: Cell) -> dict[str, Any]:
    ctx = {**cell.axes, **{k: v for k, v in plan.sweep.vars.items() if "{" not in v}}
    ids = plan.sweep.servers[cell.server].ledger.model_dump()
    return {k: v.format_map(ctx) if isinstance(v, str) else v for k, v in ids.items()}


def run_setup(plan: Plan, out: Path, log: Path) -> None:
    """The sweep's setup commands, in order, each bounded by ``setup_timeout_s``; output to ``log``."""
    runtime = runtime_values(plan, out)
    ctx = {**runtime, **resolve_vars(plan, runtime, {})}
    for template in plan.sweep.setup:
        command = template.format_map(ctx)
        with log.open("ab") as fh:
            fh.write(f"$ {command}\n".encode())
            fh.flush()
            try:
                proc = subprocess.run(shlex.split(command), stdout=fh, stderr=subprocess.STDOUT,
                                      timeout=plan.sweep.setup_timeout_s, check=False)
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise SweepError(f"setup command {command!r} failed: {exc}") from None
        if proc.returncode != 0:
            raise SweepError(f"setup command {command!r} exited with {proc.returncode} (log: {log})")


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """SIGTERM (scancel, kill) raises ``SweepInterrupted`` so servers are stopped and the attempt is marked."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, _frame: Any) -> None:
        raise SweepInterrupted(f"stopped by signal {signal.Signals(signum).name}")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _rearm() -> None:
    """The harness session restores default handlers when it ends: put ours back."""
    if threading.current_thread() is threading.main_thread():
        def handler(signum: int, _frame: Any) -> None:
            raise SweepInterrupted(f"stopped by signal {signal.Signals(signum).name}")

        signal.signal(signal.SIGTERM, handler)


def sizes(points: list[ClientPoint]) -> list[tuple[int, int]]:
    """The (input, output) sizes of the grid, in order."""
    out: list[tuple[int, int]] = []
    for p in points:
        if (p.input_tokens, p.output_tokens) not in out:
            out.append((p.input_tokens, p.output_tokens))
    return out


def run_group(sweep: SweepDir, plan: Plan, group: Group, *, executor: str, job_id: str | None = None,
              progress: ProgressFn | None = None) -> Path:
    """Run ``group`` once and commit it; returns the committed folder. Raises on failure or a stop."""
    emit = progress or (lambda _e: None)
    folder, owner = sweep.start_attempt(group, executor, job_id)
    try:
        with signals_raise():
            manifest, cells = _run(sweep, plan, group, folder, owner, emit)
        committed = sweep.commit(group, folder, manifest, cells)
    except BaseException as exc:
        reason = str(exc) if isinstance(exc, BenchledgerError) else f"{type(exc).__name__}: {exc}"
        sweep.fail_attempt(group, folder, owner.attempt, reason or type(exc).__name__)
        if isinstance(exc, KeyboardInterrupt):
            raise SweepInterrupted("interrupted (Ctrl-C)") from None
        raise
    emit({"type": "group-done", "group": group.folder})
    return committed


def _run(sweep: SweepDir, plan: Plan, group: Group, folder: Path, owner: Any,
         emit: ProgressFn) -> tuple[GroupManifest, list[CellManifest]]:
    from benchledger import __version__

    cells = plan.group_cells(group)
    client = plan.sweep.client
    served = plan.sweep.servers[cells[0].server].served_model
    run_setup(plan, sweep.root, folder / "setup.log")
    runtime = runtime_values(plan, sweep.root)
    concurrent = plan.sweep.pairing.mode == "concurrent"
    stages = [cells] if concurrent else [[c] for c in cells]
    grid = sizes(plan.points)
    sessions: list[SessionRun] = []
    engines: list[EngineRun] = []
    for repeat in range(client.repeats):
        for stage in stages:
            block = f"r{repeat}" + ("" if concurrent else f"/{stage[0].name}")
            started: list[harness.Engine] = []
            try:
                for i, cell in enumerate(stage):
                    template = plan.sweep.servers[cell.server]
                    port = harness.free_port() if template.port == "auto" else template.port + i
                    command, env = resolve_command(plan, cell, {**runtime, "port": str(port)})
                    emit({"type": "engine", "group": group.folder, "cell": cell.name, "block": block})
                    engine = harness.start_engine(cell.name, command, env, port, folder / block,
                                                  template.ready_timeout_s)
                    _rearm()
                    started.append(engine)
                    engines.append(EngineRun(cell=cell.name, block=block, command=engine.command, **engine.info))
                for inp, outp in grid:
                    points = [p for p in plan.points if (p.input_tokens, p.output_tokens) == (inp, outp)]
                    rel = f"{block}/i{inp}-o{outp}"
                    emit({"type": "session", "group": group.folder, "session": rel, "points": len(points)})
                    arms = [(e.cell, e.url, c.spec_method, c.spec_k) for e, c in zip(started, stage, strict=True)]
                    outcome = harness.run_block(arms, points, client, served, Path(plan.sweep_dir), folder / rel,
                                                emit)
                    _rearm()
                    if outcome.interrupted:
                        raise SweepInterrupted(f"session {rel} was interrupted before it finished")
                    sessions.append(SessionRun(
                        folder=rel, repeat=repeat, input_tokens=inp, output_tokens=outp,
                        cells=[c.name for c in stage],
                        point_folders={k: v.relative_to(folder).as_posix() for k, v in outcome.point_folders.items()},
                        points=points, prompt_input_tokens=outcome.prompt_input_tokens,
                        prompt_source=outcome.prompt_source))
            finally:
                for engine in started:
                    engine.stop()
    configs = {c.name: cell_config(plan.sweep, c.axes) for c in cells}
    manifest = GroupManifest(
        sweep=plan.sweep.name, title=plan.sweep.title, references=plan.sweep.references, group=group,
        mode=plan.sweep.pairing.mode, cells=cells, configs=configs,
        ledger_ids={c.name: resolve_ledger_ids(plan, c) for c in cells}, attempt=owner.attempt, owner=owner,
        finished_utc=utc_now(), sessions=sessions, engines=engines, benchledger_version=__version__)
    cell_manifests = []
    for cell in cells:
        data: dict[str, str] = {}
        for s in sessions:
            if cell.name in s.cells:
                for rel in s.point_folders.values():
                    found = harness.requests_digest(folder / rel / cell.name)
                    if found is None:
                        raise SweepError(f"{folder / rel / cell.name}: the session wrote no requests.jsonl")
                    data[Path(found[0]).relative_to(folder).as_posix()] = found[1]
        cell_manifests.append(CellManifest(sweep=plan.sweep.name, cell=cell, config=configs[cell.name],
                                           attempt=owner.attempt, data=data))
    return manifest, cell_manifests


__all__ = ["SweepInterrupted", "resolve_command", "resolve_ledger_ids", "run_group", "run_setup", "signals_raise",
           "sizes"]
