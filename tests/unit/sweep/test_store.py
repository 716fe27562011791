"""The sweep folder: attempts, atomic commit, states (pending/running/lost/failed/done), rerun sets aside."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from benchledger.errors import SweepError
from benchledger.sweep.examples import DEMO
from benchledger.sweep.plan import Plan, build_plan
from benchledger.sweep.spec import parse_sweep
from benchledger.sweep.store import GroupManifest, Owner, SweepDir, local_alive, utc_now


def demo_plan() -> Plan:
    return build_plan(parse_sweep(yaml.safe_load(DEMO)), "/tmp")


def manifest(plan: Plan, owner: Owner) -> GroupManifest:
    group = plan.groups[0]
    return GroupManifest(sweep="s", title="", references="none", group=group, mode="concurrent",
                         cells=plan.group_cells(group), configs={}, ledger_ids={}, attempt=owner.attempt,
                         owner=owner, finished_utc=utc_now(), sessions=[], engines=[], benchledger_version="0")


def test_state_follows_the_attempt_lifecycle(tmp_path: Path) -> None:
    plan = demo_plan()
    sweep = SweepDir(tmp_path)
    sweep.write_plan(plan)
    group = plan.groups[0]
    assert sweep.read_plan() == plan
    assert sweep.state(group, lambda _o: True).state == "pending"
    folder, owner = sweep.start_attempt(group, "local")
    assert sweep.state(group, lambda _o: True).state == "running"
    lost = sweep.state(group, lambda _o: False)
    assert lost.state == "lost" and "gone without committing" in lost.detail
    sweep.fail_attempt(group, folder, owner.attempt, "boom")
    assert (sweep.state(group, lambda _o: True).state, sweep.state(group, lambda _o: True).detail) == ("failed", "boom")
    folder2, owner2 = sweep.start_attempt(group, "local")
    (folder2 / "data.txt").write_text("x")
    committed = sweep.commit(group, folder2, manifest(plan, owner2), [])
    assert committed == sweep.committed(group) and (committed / "data.txt").read_text() == "x"
    assert not folder2.exists() and folder.exists()  # the failed attempt is kept, never deleted
    assert sweep.state(group, lambda _o: False).state == "done"
    events = [(e["event"], e["attempt"]) for e in sweep.events()]
    assert events == [("started", owner.attempt), ("failed", owner.attempt), ("started", owner2.attempt),
                      ("committed", owner2.attempt)]


def test_commit_refuses_to_mix_two_attempts(tmp_path: Path) -> None:
    plan = demo_plan()
    sweep = SweepDir(tmp_path)
    group = plan.groups[0]
    a, oa = sweep.start_attempt(group, "local")
    b, ob = sweep.start_attempt(group, "local")
    sweep.commit(group, a, manifest(plan, oa), [])
    with pytest.raises(SweepError, match="another attempt committed this group first"):
        sweep.commit(group, b, manifest(plan, ob), [])
    assert b.exists() and sweep.manifest(group).attempt == oa.attempt


def test_rerun_sets_the_committed_group_aside(tmp_path: Path) -> None:
    plan = demo_plan()
    sweep = SweepDir(tmp_path)
    group = plan.groups[0]
    folder, owner = sweep.start_attempt(group, "local")
    sweep.commit(group, folder, manifest(plan, owner), [])
    moved = sweep.supersede(group)
    assert moved is not None and (moved / "manifest.json").exists() and not sweep.is_done(group)
    assert sweep.events()[-1]["event"] == "superseded"


def test_read_plan_of_a_non_sweep_folder_says_so(tmp_path: Path) -> None:
    with pytest.raises(SweepError, match="not a sweep folder"):
        SweepDir(tmp_path).read_plan()


def test_local_alive_tells_a_live_process_from_a_dead_one(tmp_path: Path) -> None:
    import subprocess
    import sys

    sweep = SweepDir(tmp_path)
    group = demo_plan().groups[0]
    _, me = sweep.start_attempt(group, "local")
    assert local_alive(me) is True
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True,
                          check=True)
    dead = me.model_copy(update={"pid": int(proc.stdout), "pid_start": None})
    assert local_alive(dead) is False or Path(f"/proc/{dead.pid}").exists()  # pid reused: alive is honest
    assert local_alive(me.model_copy(update={"host": "elsewhere"})) is None
