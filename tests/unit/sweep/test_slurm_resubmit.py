"""A second ``sweep run --executor slurm`` does not submit a group whose task is still queued or running.

``squeue`` and ``sbatch`` are stand-in programs on PATH (the scheduler is an external program; nothing of
benchledger is patched)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from benchledger.sweep.examples import EXAMPLE
from benchledger.sweep.plan import build_plan
from benchledger.sweep.slurm import JOBS_FILE, SlurmExecutor, SlurmOptions
from benchledger.sweep.spec import parse_sweep
from benchledger.sweep.store import SweepDir


def stand_in(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    path.chmod(0o755)


def test_a_live_task_is_reused_and_only_the_rest_is_submitted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "sbatch.log"
    stand_in(bin_dir, "squeue", 'case "$3" in 77_0) echo RUNNING ;; *) echo "slurm_load_jobs error: Invalid job id '
             'specified" >&2; exit 1 ;; esac\n')
    stand_in(bin_dir, "sbatch", f'echo "$@" >> {log}\necho "Submitted batch job 79"\n')
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    plan = build_plan(parse_sweep(yaml.safe_load(EXAMPLE)), "/tmp")
    sweep = SweepDir(tmp_path / "out")
    sweep.write_plan(plan)
    first, second = plan.groups
    (sweep.root / ".slurm").mkdir()
    (sweep.root / JOBS_FILE).write_text(json.dumps({first.folder: "77_0", second.folder: "78_0"}))
    executor = SlurmExecutor(sweep, plan, SlurmOptions(partition="debug"))
    handles = executor.submit(plan.groups)
    assert [(h.group.folder, h.job_id) for h in handles] == [(first.folder, "77_0"), (second.folder, "79")]  # one task: a plain job
    assert [h.job_id for h in executor.reused] == ["77_0"]
    assert len(log.read_text().splitlines()) == 1  # one sbatch call, for the dead task's group only
    assert json.loads((sweep.root / JOBS_FILE).read_text()) == {first.folder: "77_0", second.folder: "79"}
