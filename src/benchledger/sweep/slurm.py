"""The Slurm executor: one job array through submitit, one array task per group (one allocation per pair).

Each task reads ``<out>/plan.json`` from the shared filesystem, runs its group (``execute.run_group``, retried
inside the allocation up to ``retries``) and commits it there; ``wait`` polls the folder and asks ``squeue``
whether unfinished tasks are still alive; ``cancel`` is ``scancel``. A task that died (cancelled, node lost,
time limit) leaves its group uncommitted: ``sweep status`` shows it failed or lost and the next ``sweep run``
submits it again. The allocation holds one node (``--nodes 1``): both arms of a pair never cross nodes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchledger.errors import SweepError
from benchledger.sweep.executors import Handle, run_with_retries
from benchledger.sweep.plan import Group, Plan
from benchledger.sweep.store import GroupState, Owner, SweepDir, write_json_atomic

JOBS_FILE = ".slurm/jobs.json"
"""Group folder → the Slurm job id (``<array>_<task>``) last submitted for it."""
ALIVE_STATES = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING", "SIGNALING",
                "STAGE_OUT"}


@dataclass
class SlurmOptions:
    """What each array task asks Slurm for."""

    partition: str | None = None
    gpus_per_cell: int = 0
    time_min: int = 60
    array_parallelism: int = 16
    extra: list[str] = field(default_factory=list)
    """Extra ``#SBATCH`` lines: ``--key=value`` or ``--flag`` (a leading ``#SBATCH`` is accepted)."""
    wait_timeout_s: float | None = None
    """How long ``wait`` waits in all (default: the time limit per wave of tasks + one hour of queueing)."""


def parse_extra(lines: list[str]) -> dict[str, Any]:
    """``['--exclusive', '--constraint=h200']`` → submitit's ``additional_parameters``."""
    out: dict[str, Any] = {}
    for line in lines:
        text = line.strip().removeprefix("#SBATCH").strip()
        if not text.startswith("--") or len(text) < 3 or " " in text.split("=", 1)[0]:
            raise SweepError(f"--slurm-extra {line!r}: expected --key=value or --flag")
        key, sep, value = text[2:].partition("=")
        out[key] = value if sep else True
    return out


def slurm_task(root: str, group_key: str, retries: int) -> str:
    """What one array task runs (module-level so submitit pickles it by reference)."""
    sweep = SweepDir(Path(root))
    plan = sweep.read_plan()
    group = plan.group(group_key)
    job_id = os.environ.get("SLURM_JOB_ID")
    if os.environ.get("SLURM_ARRAY_JOB_ID") and os.environ.get("SLURM_ARRAY_TASK_ID"):
        job_id = f"{os.environ['SLURM_ARRAY_JOB_ID']}_{os.environ['SLURM_ARRAY_TASK_ID']}"
    if not run_with_retries(sweep, plan, group, retries, executor="slurm", job_id=job_id):
        raise SweepError(f"group {group.folder} failed {retries + 1} time(s); see {sweep.root / '.attempts'}")
    return group.folder


def _read_jobs(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def job_alive(job_id: str) -> bool | None:
    """Whether Slurm still has the job (queued or running); None when squeue cannot tell."""
    if shutil.which("squeue") is None:
        return None
    try:
        proc = subprocess.run(["squeue", "-h", "-j", job_id, "-o", "%T"], capture_output=True, text=True,
                              timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return False if "Invalid job id" in proc.stderr else None
    states = {s.strip() for s in proc.stdout.split()}
    return bool(states & ALIVE_STATES)


class SlurmExecutor:
    """Submit groups as one submitit job array on the shared filesystem of ``sweep.root``."""

    name = "slurm"

    def __init__(self, sweep: SweepDir, plan: Plan, options: SlurmOptions, *, retries: int = 0,
                 poll_s: float = 2.0) -> None:
        self.sweep, self.plan, self.options, self.retries, self.poll_s = sweep, plan, options, retries, poll_s
        self.reused: list[Handle] = []
        """Handles of the last ``submit`` that are tasks of an earlier run, still queued or running."""

    def submit(self, groups: list[Group]) -> list[Handle]:
        """One job array for the groups without a live task; a group whose task from an earlier ``sweep run``
        is still queued or running is not submitted again (its handle is that task)."""
        jobs_file = self.sweep.root / JOBS_FILE
        known = _read_jobs(jobs_file)
        live = {g.folder: known[g.folder] for g in groups if g.folder in known and job_alive(known[g.folder])}
        fresh = [g for g in groups if g.folder not in live]
        handles = [Handle(g, live[g.folder]) for g in groups if g.folder in live]
        self.reused = list(handles)
        if fresh:
            handles += self._submit(fresh)
            write_json_atomic(jobs_file, {**known, **{h.group.folder: h.job_id for h in handles}})
        order = {g.folder: i for i, g in enumerate(groups)}
        return sorted(handles, key=lambda h: order[h.group.folder])

    def _submit(self, groups: list[Group]) -> list[Handle]:
        try:
            import submitit
        except ImportError as exc:
            raise SweepError("--executor slurm needs submitit: pip install submitit") from exc
        if shutil.which("sbatch") is None:
            raise SweepError("--executor slurm: sbatch not found on PATH (is this a Slurm login node?)")
        opts = self.options
        executor = submitit.SlurmExecutor(folder=self.sweep.root / ".slurm" / "%j", max_num_timeout=0)
        params: dict[str, Any] = {"time": opts.time_min, "nodes": 1, "ntasks_per_node": 1,
                                  "array_parallelism": opts.array_parallelism, "job_name": f"sweep-{self.plan.sweep.name}",
                                  "stderr_to_stdout": True}
        if opts.partition:
            params["partition"] = opts.partition
        if opts.gpus_per_cell:
            params["gpus_per_node"] = opts.gpus_per_cell
        extra = parse_extra(opts.extra)
        if extra:
            params["additional_parameters"] = extra
        executor.update_parameters(**params)
        n = len(groups)
        try:
            jobs = executor.map_array(slurm_task, [str(self.sweep.root)] * n, [g.key for g in groups],
                                      [self.retries] * n)
        except Exception as exc:  # submitit raises its own FailedJobError/RuntimeError on sbatch errors
            raise SweepError(f"sbatch failed: {exc}") from None
        return [Handle(g, str(j.job_id)) for g, j in zip(groups, jobs, strict=True)]

    def wait(self, handles: list[Handle]) -> None:
        """Until every group is committed or its task is gone (or the deadline passes: then a SweepError)."""
        opts = self.options
        waves = -(-len(handles) // max(1, opts.array_parallelism))
        limit = opts.wait_timeout_s if opts.wait_timeout_s is not None else waves * opts.time_min * 60 + 3600
        deadline = time.monotonic() + limit
        while True:
            open_ = [h for h in handles if not self._finished(h)]
            if not open_:
                return
            if time.monotonic() > deadline:
                raise SweepError(f"{len(open_)} group(s) still unfinished after {limit:g} s; jobs keep running: "
                                 f"see `benchledger sweep status {self.sweep.root}`")
            time.sleep(self.poll_s)

    def _finished(self, handle: Handle) -> bool:
        if self.sweep.is_done(handle.group):
            return True
        alive = job_alive(handle.job_id) if handle.job_id else None
        if alive is not None:
            return not alive  # an earlier attempt's failure says nothing while this task is queued or running
        return self.sweep.state(handle.group, self.alive).state in ("failed", "lost")

    def cancel(self, handles: list[Handle]) -> None:
        ids = [h.job_id for h in handles if h.job_id]
        if ids:
            subprocess.run(["scancel", *ids], check=False, timeout=60)

    def status(self, handles: list[Handle]) -> list[GroupState]:
        return [self.sweep.state(h.group, self.alive) for h in handles]

    def alive(self, owner: Owner) -> bool | None:
        return job_alive(owner.job_id) if owner.job_id else None


__all__ = ["JOBS_FILE", "SlurmExecutor", "SlurmOptions", "job_alive", "parse_extra", "slurm_task"]
