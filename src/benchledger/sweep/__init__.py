"""Sweeps as code: one declarative file (``spec``), resolved into cells and pairing groups (``plan``), run group
by group by an executor (``executors``: local, ``slurm``), kept on disk as committed folders (``store``), and
collected into one audited experiment record per group (``collect``). ``harness`` is the only module that calls
``benchledger.bench``."""

from __future__ import annotations

from benchledger.sweep.plan import Cell, ClientPoint, Group, Plan, build_plan
from benchledger.sweep.run import Prepared, plan_file, prepare
from benchledger.sweep.spec import SweepFile, load_sweep, parse_sweep
from benchledger.sweep.store import GroupState, SweepDir

__all__ = [
    "Cell",
    "ClientPoint",
    "Group",
    "GroupState",
    "Plan",
    "Prepared",
    "SweepDir",
    "SweepFile",
    "build_plan",
    "load_sweep",
    "parse_sweep",
    "plan_file",
    "prepare",
]
