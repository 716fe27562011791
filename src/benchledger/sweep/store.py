"""The sweep folder on disk: plan, attempts, committed groups, the event log, and what state each group is in.

Layout of ``<out>/``::

    plan.json                       the resolved plan every task reads (rewritten by each ``sweep run``)
    events.jsonl                    append-only: {utc, event: started|committed|failed|superseded, group, attempt}
    .attempts/<group>/<attempt>/    a group being run: owner.json (host, pid, job id), run data, failed.json
    <label>-<group key>/            a committed group: manifest.json, cells/<cell>.json, run data
    .superseded/<group>-<attempt>/  a committed group set aside by ``--rerun`` (never deleted)

A group is committed by one ``rename`` of its attempt folder, after its manifest is written, so a committed
folder only ever holds one attempt's data of one configuration; an attempt that died leaves its folder under
``.attempts`` (shown by ``sweep status``, ignored by the collector, never deleted).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from benchledger.errors import SweepError
from benchledger.sweep.plan import Cell, ClientPoint, Group, Plan

MANIFEST_SCHEMA_VERSION = 1
PLAN_FILE, EVENTS_FILE, MANIFEST_FILE, OWNER_FILE, FAILED_FILE = (
    "plan.json", "events.jsonl", "manifest.json", "owner.json", "failed.json")
ATTEMPTS_DIR, SUPERSEDED_DIR = ".attempts", ".superseded"
State = Literal["done", "running", "failed", "lost", "pending"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Owner(_Model):
    """Who runs an attempt: enough to tell later whether it is still alive."""

    attempt: str
    host: str
    pid: int
    pid_start: str | None = None
    executor: str
    job_id: str | None = None
    started_utc: str


class EngineRun(_Model):
    """One server start: the exact command (redacted), how long it took, what version it reported."""

    cell: str
    block: str
    command: str
    ready_s: float | None
    version: str | None = None
    version_source: str | None = None
    log: str


class SessionRun(_Model):
    """One harness session: one repeat × input × output of the grid, over every load level."""

    folder: str = Field(description="Relative to the group folder.")
    repeat: int
    input_tokens: int
    output_tokens: int
    cells: list[str] = Field(description="Arms of the session (cell names), baseline first.")
    point_folders: dict[str, str] = Field(description="Load label (conc-4) → folder relative to the group.")
    points: list[ClientPoint]
    prompt_input_tokens: list[int | None]
    prompt_source: list[str]


class CellManifest(_Model):
    """A cell's self-description: its resolved configuration and where its data is."""

    schema_version: int = MANIFEST_SCHEMA_VERSION
    sweep: str
    cell: Cell
    config: dict[str, Any]
    attempt: str
    data: dict[str, str] = Field(description="requests.jsonl path (relative to the group) → sha256.")


class GroupManifest(_Model):
    """A committed group: what ran, where, when, by whom, and every session's data."""

    schema_version: int = MANIFEST_SCHEMA_VERSION
    sweep: str
    title: str
    references: str
    group: Group
    mode: str
    cells: list[Cell]
    configs: dict[str, dict[str, Any]]
    ledger_ids: dict[str, dict[str, Any]]
    attempt: str
    owner: Owner
    finished_utc: str
    sessions: list[SessionRun]
    engines: list[EngineRun]
    benchledger_version: str


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON through a temporary file and a rename: never half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8")
    tmp.replace(path)


def _pid_start(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


@dataclass(frozen=True)
class GroupState:
    """What ``sweep status`` says about one group."""

    group: Group
    state: State
    attempt: str | None = None
    detail: str = ""


class SweepDir:
    """One sweep output folder (see the module doc)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    # plan ---------------------------------------------------------------------------------------------------
    def write_plan(self, plan: Plan) -> None:
        write_json_atomic(self.root / PLAN_FILE, plan.model_dump(mode="json"))

    def read_plan(self) -> Plan:
        path = self.root / PLAN_FILE
        try:
            return Plan.model_validate_json(path.read_text(encoding="utf-8"))
        except OSError:
            raise SweepError(f"{self.root}: not a sweep folder (no {PLAN_FILE}); run `benchledger sweep run` "
                             "first") from None
        except ValueError as exc:
            raise SweepError(f"{path}: unreadable plan: {exc}") from None

    # events -------------------------------------------------------------------------------------------------
    def event(self, event: str, group: Group, attempt: str, **extra: Any) -> None:
        """Append one line (one ``write`` on an O_APPEND file: lines from parallel tasks never interleave)."""
        line = json.dumps({"utc": utc_now(), "event": event, "group": group.folder, "attempt": attempt, **extra},
                          sort_keys=True) + "\n"
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / EVENTS_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)

    def events(self) -> list[dict[str, Any]]:
        path = self.root / EVENTS_FILE
        if not path.exists():
            return []
        return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]

    # groups -------------------------------------------------------------------------------------------------
    def committed(self, group: Group) -> Path:
        return self.root / group.folder

    def is_done(self, group: Group) -> bool:
        return (self.committed(group) / MANIFEST_FILE).exists()

    def manifest(self, group: Group) -> GroupManifest:
        path = self.committed(group) / MANIFEST_FILE
        try:
            return GroupManifest.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SweepError(f"{path}: unreadable group manifest: {exc}") from None

    def attempts(self, group: Group) -> list[Path]:
        base = self.root / ATTEMPTS_DIR / group.folder
        return sorted(p for p in base.iterdir() if p.is_dir()) if base.exists() else []

    def start_attempt(self, group: Group, executor: str, job_id: str | None = None) -> tuple[Path, Owner]:
        """A fresh attempt folder with its owner file; logs ``started``."""
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dt%H%M%S")
        attempt = f"{stamp}-{secrets.token_hex(3)}"
        folder = self.root / ATTEMPTS_DIR / group.folder / attempt
        folder.mkdir(parents=True)
        owner = Owner(attempt=attempt, host=socket.gethostname(), pid=os.getpid(), pid_start=_pid_start(os.getpid()),
                      executor=executor, job_id=job_id, started_utc=utc_now())
        write_json_atomic(folder / OWNER_FILE, owner.model_dump(mode="json"))
        self.event("started", group, attempt, executor=executor, job_id=job_id, host=owner.host)
        return folder, owner

    def fail_attempt(self, group: Group, folder: Path, attempt: str, reason: str) -> None:
        write_json_atomic(folder / FAILED_FILE, {"reason": reason, "utc": utc_now()})
        self.event("failed", group, attempt, reason=reason)

    def supersede(self, group: Group) -> Path | None:
        """Set a committed group aside (``--rerun``); nothing is deleted."""
        if not self.is_done(group):
            return None
        old = self.manifest(group).attempt
        dest = self.root / SUPERSEDED_DIR / f"{group.folder}-{old}"
        dest.parent.mkdir(parents=True, exist_ok=True)
        self.committed(group).rename(dest)
        self.event("superseded", group, old)
        return dest

    def commit(self, group: Group, folder: Path, manifest: GroupManifest, cells: list[CellManifest]) -> Path:
        """Write the manifests into the attempt folder, then rename it to the group folder (atomic)."""
        for cell in cells:
            write_json_atomic(folder / "cells" / f"{cell.cell.name}.json", cell.model_dump(mode="json"))
        write_json_atomic(folder / MANIFEST_FILE, manifest.model_dump(mode="json"))
        target = self.committed(group)
        if target.exists():
            raise SweepError(f"{target} already exists: another attempt committed this group first; this "
                             f"attempt's data stays in {folder}")
        folder.rename(target)
        self.event("committed", group, manifest.attempt)
        return target

    # state --------------------------------------------------------------------------------------------------
    def state(self, group: Group, alive: Callable[[Owner], bool | None]) -> GroupState:
        """done / running / failed / lost / pending, from the folder alone plus ``alive`` (scheduler, pid)."""
        if self.is_done(group):
            return GroupState(group, "done", self.manifest(group).attempt)
        attempts = self.attempts(group)
        if not attempts:
            return GroupState(group, "pending")
        last = attempts[-1]
        if (last / FAILED_FILE).exists():
            reason = json.loads((last / FAILED_FILE).read_text(encoding="utf-8")).get("reason", "")
            return GroupState(group, "failed", last.name, reason)
        try:
            owner = Owner.model_validate_json((last / OWNER_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return GroupState(group, "lost", last.name, "no readable owner.json")
        verdict = alive(owner)
        where = f"{owner.executor} job {owner.job_id}" if owner.job_id else f"pid {owner.pid} on {owner.host}"
        if verdict is False:
            return GroupState(group, "lost", last.name, f"{where} is gone without committing (killed or died)")
        return GroupState(group, "running", last.name, where + ("" if verdict else " (liveness unknown)"))


def local_alive(owner: Owner) -> bool | None:
    """Whether a process owner still runs (None when it ran on another host)."""
    if owner.host != socket.gethostname():
        return None
    try:
        os.kill(owner.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return owner.pid_start is None or _pid_start(owner.pid) == owner.pid_start


__all__ = [
    "MANIFEST_SCHEMA_VERSION",
    "CellManifest",
    "EngineRun",
    "GroupManifest",
    "GroupState",
    "Owner",
    "SessionRun",
    "State",
    "SweepDir",
    "local_alive",
    "utc_now",
    "write_json_atomic",
]
