"""Sweep commands: ``sweep example | plan | run | status | record`` (core in ``benchledger.sweep``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from benchledger.cli.options import LedgerOption, console
from benchledger.cli.render import print_table

sweep_app = typer.Typer(help="Sweeps as code: one file, resumable, run locally or on Slurm.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(sweep_app, name="sweep")


@sweep_app.command("example")
def example(demo: bool = typer.Option(False, "--demo", help="The sweep that runs the tiny llama.cpp demo here.")) -> None:
    """Print a commented sweep file."""
    from benchledger.sweep.examples import example_text

    print(example_text(demo), end="")


@sweep_app.command("plan")
def plan(file: Path = typer.Argument(..., help="Sweep file (YAML)."),
         as_json: bool = typer.Option(False, "--json", help="The resolved plan as JSON.")) -> None:
    """Resolve the file into cells (one per matrix combination) and pairing groups, without running anything."""
    from benchledger.sweep.run import plan_file

    p = plan_file(file)
    if as_json:
        print(json.dumps(p.model_dump(mode="json"), indent=2))
        return
    groups = {g.key: g for g in p.groups}
    rows = [(groups[c.group].folder, c.name, c.key, c.server, "baseline" if c.baseline else
             f"{c.spec_method}:{c.spec_k}" if c.spec_k is not None else str(c.spec_method), len(p.points))
            for c in p.cells]
    con = console()
    print_table(con, ("group", "cell", "key", "server", "spec", "client points"), rows,
                title=f"sweep {p.sweep.name}: {len(p.cells)} cells in {len(p.groups)} groups "
                f"({p.sweep.pairing.mode} pairing)")
    con.print("client points: " + ", ".join(pt.label for pt in p.points))


@sweep_app.command("run")
def run(
    file: Path = typer.Argument(..., help="Sweep file (YAML)."),
    out: Path = typer.Option(Path("sweep-out"), "--out", help="Sweep folder (on the shared filesystem for Slurm)."),
    executor: str = typer.Option("local", "--executor", help="local or slurm."),
    rerun: bool = typer.Option(False, "--rerun", help="Run every group again (committed ones are set aside)."),
    retries: int = typer.Option(0, "--retries", min=0, help="Retries of a failed group."),
    record: bool = typer.Option(False, "--record", help="Then write the records and audit them."),
    ledger: Path | None = LedgerOption,
    slurm_partition: str | None = typer.Option(None, "--slurm-partition", help="Slurm partition of the job array."),
    slurm_gpus_per_cell: int = typer.Option(0, "--slurm-gpus-per-cell", min=0, help="GPUs per array task (one cell)."),
    slurm_time: int = typer.Option(60, "--slurm-time", min=1, help="Minutes per array task."),
    slurm_array_parallelism: int = typer.Option(16, "--slurm-array-parallelism", min=1,
                                                 help="Array tasks running at once."),
    slurm_extra: list[str] = typer.Option([], "--slurm-extra", help="Extra #SBATCH line, e.g. --exclusive."),
) -> None:
    """Run the groups not done yet (resume is the default), one allocation per group; optionally record."""
    from benchledger.errors import SweepError
    from benchledger.sweep.executors import LocalExecutor
    from benchledger.sweep.run import prepare

    if executor not in ("local", "slurm"):
        raise SweepError("--executor must be 'local' or 'slurm'")
    if record:
        from benchledger.sweep.collect import check_ledger_ids
        from benchledger.sweep.run import plan_file

        check_ledger_ids(plan_file(file), _ledger_root(ledger))
    prep = prepare(file, out, rerun=rerun)
    con = console(stderr=True)
    con.print(f"sweep {prep.plan.sweep.name}: {len(prep.plan.groups)} group(s), {len(prep.done)} done, "
              f"{len(prep.todo)} to run → {prep.sweep.root}")
    if executor == "slurm":
        from benchledger.sweep.slurm import SlurmExecutor, SlurmOptions

        opts = SlurmOptions(partition=slurm_partition, gpus_per_cell=slurm_gpus_per_cell, time_min=slurm_time,
                            array_parallelism=slurm_array_parallelism, extra=slurm_extra)
        ex: Any = SlurmExecutor(prep.sweep, prep.plan, opts, retries=retries)
        handles = ex.submit(prep.todo)
        if ex.reused:
            con.print(f"{len(ex.reused)} group(s) still queued or running from an earlier run (jobs "
                      f"{', '.join(h.job_id for h in ex.reused)}): not submitted again")
        fresh = [h for h in handles if h not in ex.reused]
        if fresh:
            con.print(f"submitted job array {str(fresh[0].job_id).split('_')[0]} ({len(fresh)} task(s))")
        _wait(ex, handles, con)
    else:
        _run_local(LocalExecutor, prep, retries, con)
    from benchledger.sweep.executors import owner_alive

    states = [prep.sweep.state(g, owner_alive) for g in prep.plan.groups]
    _print_states(states)
    bad = [s for s in states if s.state != "done"]
    if record and len(bad) < len(states):
        _record(prep.sweep, ledger)
    if bad:
        raise typer.Exit(1)


def _wait(ex: Any, handles: list[Any], con: Any) -> None:
    try:
        ex.wait(handles)
    except KeyboardInterrupt:
        ex.cancel(handles)
        con.print("[red]interrupted[/]: scancel sent; committed groups are kept, the rest run next time")
        raise typer.Exit(130) from None


def _run_local(executor_cls: Any, prep: Any, retries: int, con: Any) -> None:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from benchledger.sweep.execute import SweepInterrupted

    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
               TimeElapsedColumn())
    with Progress(*columns, console=con, transient=False) as bar:
        groups = bar.add_task("groups", total=len(prep.todo))
        inner: dict[str, Any] = {}

        def on_event(event: dict[str, Any]) -> None:
            kind = event.get("type")
            if kind == "group-done":
                bar.advance(groups)
            elif kind == "group-failed":
                con.print(f"[red]failed[/] {event['group']} (try {event['attempt']}/{event['retries'] + 1}): "
                          f"{event['reason']}")
            elif kind == "request":
                key = f"  {event['point']} {event['arm']}"
                if key not in inner:
                    inner[key] = bar.add_task(key, total=event["total"])
                bar.update(inner[key], completed=event["done"])

        ex = executor_cls(prep.sweep, prep.plan, retries=retries, progress=on_event)
        try:
            ex.wait(ex.submit(prep.todo))
        except SweepInterrupted as exc:
            con.print(f"[red]interrupted[/]: {exc}; committed groups are kept, the rest run next time")
            raise typer.Exit(130) from None


def _print_states(states: list[Any]) -> None:
    rows = [(s.group.folder, s.state, s.attempt or "", s.detail) for s in states]
    print_table(console(stderr=True), ("group", "state", "attempt", "detail"), rows)


@sweep_app.command("status")
def status(out: Path = typer.Argument(..., help="Sweep folder."),
           as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Each group's state: done, running, failed, lost (its job or process died) or pending."""
    from benchledger.sweep.executors import owner_alive
    from benchledger.sweep.store import SweepDir

    sweep = SweepDir(out)
    plan_ = sweep.read_plan()
    states = [sweep.state(g, owner_alive) for g in plan_.groups]
    if as_json:
        print(json.dumps([{"group": s.group.folder, "cells": s.group.cells, "state": s.state, "attempt": s.attempt,
                           "detail": s.detail} for s in states], indent=2))
        return
    rows = [(s.group.folder, ", ".join(s.group.cells), s.state, s.attempt or "", s.detail) for s in states]
    print_table(console(), ("group", "cells", "state", "attempt", "detail"), rows)


@sweep_app.command("record")
def record_cmd(out: Path = typer.Argument(..., help="Sweep folder."), ledger: Path | None = LedgerOption) -> None:
    """Write one experiment record per committed group (every cell × point an arm) and audit them."""
    from benchledger.sweep.store import SweepDir

    _record(SweepDir(out), ledger)


def _ledger_root(ledger: Path | None) -> Path:
    from benchledger.ledger.paths import resolve_ledger_dir

    return ledger if ledger is not None else resolve_ledger_dir(None)


def _record(sweep: Any, ledger: Path | None) -> None:
    from benchledger.sweep.collect import collect

    result = collect(sweep, _ledger_root(ledger))
    con = console()
    if result.initialised:
        con.print(f"created ledger {result.ledger} (with the bundled reference records)")
    for rid, path in result.records.items():
        con.print(f"record {rid}: {path}")
    for missing in result.missing:
        con.print(f"[yellow]not recorded[/] {missing}: not committed yet")
    for f in result.findings:
        con.print(f"{f.severity} {f.code} {f.record} {f.field}: {f.message}")
    con.print(f"audit of the new records: {result.audit_errors} error(s)")
    if result.audit_errors:
        raise typer.Exit(1)
