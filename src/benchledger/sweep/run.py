"""Entry points the CLI calls: plan a file, prepare a sweep folder, pick the groups still to run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchledger.sweep.plan import Group, Plan, build_plan
from benchledger.sweep.spec import load_sweep
from benchledger.sweep.store import SweepDir


def plan_file(path: Path) -> Plan:
    """Load, validate and resolve a sweep file (no I/O besides reading it)."""
    return build_plan(load_sweep(path), str(path.resolve().parent))


@dataclass
class Prepared:
    """A sweep folder ready to run: the plan written, the groups to run and those already done."""

    sweep: SweepDir
    plan: Plan
    todo: list[Group]
    done: list[Group]
    superseded: list[Path]


def prepare(path: Path, out: Path, *, rerun: bool = False) -> Prepared:
    """Write ``<out>/plan.json``; with ``rerun`` set committed groups aside (nothing is deleted)."""
    plan = plan_file(path)
    sweep = SweepDir(out)
    sweep.write_plan(plan)
    superseded = [p for g in plan.groups if rerun and (p := sweep.supersede(g)) is not None]
    done = [g for g in plan.groups if sweep.is_done(g)]
    todo = [g for g in plan.groups if not sweep.is_done(g)]
    return Prepared(sweep=sweep, plan=plan, todo=todo, done=done, superseded=superseded)


__all__ = ["Prepared", "plan_file", "prepare"]
