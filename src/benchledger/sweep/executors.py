"""Executors: where groups run. One small interface: ``submit(groups) → handles``, ``wait``, ``cancel``, ``status``.

``LocalExecutor`` runs groups one after another in this process. ``SlurmExecutor`` (``benchledger.sweep.slurm``)
submits one job array through submitit, one task per group. Either way the sweep folder is the truth: a group is
done when its committed folder exists, whoever ran it; the scheduler is only asked whether an attempt's owner is
still alive.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from benchledger.errors import BenchError, SweepError
from benchledger.sweep.execute import ProgressFn, SweepInterrupted, run_group
from benchledger.sweep.plan import Group, Plan
from benchledger.sweep.store import GroupState, Owner, SweepDir, local_alive


@dataclass
class Handle:
    """One submitted group (``job_id`` set by schedulers)."""

    group: Group
    job_id: str | None = None


class Executor(Protocol):
    """Where groups run."""

    name: str

    def submit(self, groups: list[Group]) -> list[Handle]: ...

    def wait(self, handles: list[Handle]) -> None: ...

    def cancel(self, handles: list[Handle]) -> None: ...

    def status(self, handles: list[Handle]) -> list[GroupState]: ...

    def alive(self, owner: Owner) -> bool | None: ...


def run_with_retries(sweep: SweepDir, plan: Plan, group: Group, retries: int, *, executor: str,
                     job_id: str | None = None, progress: ProgressFn | None = None) -> bool:
    """Run a group up to ``1 + retries`` times; True when committed. A stop (signal, Ctrl-C) is never retried."""
    for attempt in range(retries + 1):
        if sweep.is_done(group):
            return True
        try:
            run_group(sweep, plan, group, executor=executor, job_id=job_id, progress=progress)
            return True
        except SweepInterrupted:
            raise
        except (BenchError, SweepError, OSError) as exc:
            if progress is not None:
                progress({"type": "group-failed", "group": group.folder, "attempt": attempt + 1,
                          "retries": retries, "reason": str(exc)})
    return False


class LocalExecutor:
    """Groups one after another on this machine (``wait`` runs them)."""

    name = "local"

    def __init__(self, sweep: SweepDir, plan: Plan, *, retries: int = 0, progress: ProgressFn | None = None) -> None:
        self.sweep, self.plan, self.retries, self.progress = sweep, plan, retries, progress
        self._cancelled = False

    def submit(self, groups: list[Group]) -> list[Handle]:
        return [Handle(g) for g in groups]

    def wait(self, handles: list[Handle]) -> None:
        for handle in handles:
            if self._cancelled:
                break
            run_with_retries(self.sweep, self.plan, handle.group, self.retries, executor=self.name,
                             progress=self.progress)

    def cancel(self, handles: list[Handle]) -> None:
        del handles
        self._cancelled = True

    def status(self, handles: list[Handle]) -> list[GroupState]:
        return [self.sweep.state(h.group, self.alive) for h in handles]

    def alive(self, owner: Owner) -> bool | None:
        return local_alive(owner)


def owner_alive(owner: Owner) -> bool | None:
    """Liveness of any attempt's owner: a Slurm job through squeue, a local process by pid."""
    if owner.job_id:
        from benchledger.sweep.slurm import job_alive

        return job_alive(owner.job_id)
    return local_alive(owner)


__all__ = ["Executor", "Handle", "LocalExecutor", "owner_alive", "run_with_retries"]
