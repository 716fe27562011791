"""The collector: one experiment record per committed group, every cell × client point an arm; then the audit.

Idempotent: the record id is derived from the sweep, the group and the committed attempt, so collecting the same
folder again rewrites the same record; the group's run data is copied to ``<ledger>/runs/<record id>/`` once (a
copy already there must hold the same attempt, or nothing is written). Groups not committed yet are listed, not
recorded.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchledger.errors import SweepError
from benchledger.sweep import harness
from benchledger.sweep.execute import resolve_ledger_ids, sizes
from benchledger.sweep.plan import Group, Plan, slug
from benchledger.sweep.store import MANIFEST_FILE, GroupManifest, SweepDir

MODE_TEXT = {
    "concurrent": "concurrent: every server of the group was up at once on one allocation and the arms ran "
                  "interleaved in rounds (A B A B …) on the same prompts",
    "alternating": "alternating: one server at a time on one allocation, blocks A B A B (one per repeat) on the "
                   "same prompts, the server restarted between blocks",
}


@dataclass
class CollectResult:
    """What ``sweep record`` wrote and what the audit said about it."""

    ledger: Path
    records: dict[str, Path] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    initialised: bool = False
    findings: list[Any] = field(default_factory=list)
    audit_errors: int = 0


def record_id(manifest: GroupManifest) -> str:
    return slug(f"sweep-{manifest.sweep}-{manifest.group.label}-{manifest.attempt}")


def _copy_run(src: Path, ledger: Path, rid: str, manifest: GroupManifest) -> Path:
    dest = ledger / "runs" / rid
    if dest.exists():
        try:
            there = json.loads((dest / MANIFEST_FILE).read_text(encoding="utf-8")).get("attempt")
        except (OSError, ValueError):
            there = None
        if there != manifest.attempt:
            raise SweepError(f"{dest} exists and does not hold attempt {manifest.attempt}; nothing written")
        return dest
    return harness.place_run(src, ledger, rid)


def _body(m: GroupManifest) -> str:
    lines = [f"Produced by `benchledger sweep` (sweep `{m.sweep}`, group `{m.group.label}`, attempt `{m.attempt}`, "
             f"benchledger {m.benchledger_version}).", "", f"Pairing: {MODE_TEXT[m.mode]}.", "", "Cells (key: command):"]
    commands = {e.cell: e.command for e in m.engines}
    lines += [f"- `{c.name}` (`{c.key}`): `{commands.get(c.name, '')}`" for c in m.cells]
    lines += ["", f"Run by {m.owner.executor}" + (f" job {m.owner.job_id}" if m.owner.job_id else "") +
              f" on {m.owner.host}; finished {m.finished_utc}.", ""]
    return "\n".join(lines)


def build(sweep: SweepDir, group: Group, ledger: Path) -> tuple[str, Any]:
    """The record of one committed group (its run data copied into the ledger first)."""
    m = sweep.manifest(group)
    rid = record_id(m)
    dest = _copy_run(sweep.committed(group), ledger, rid, m)
    plan_client = harness_client(m)
    spec = {c.name: (c.spec_method, c.spec_k) for c in m.cells}
    baseline = m.cells[0].name
    grid = sizes([p for s in m.sessions for p in s.points])
    repeats = max(s.repeat for s in m.sessions) + 1
    sessions = []
    for s in m.sessions:
        suffix = (f"-i{s.input_tokens}-o{s.output_tokens}" if len(grid) > 1 else "") + (f"-r{s.repeat}" if repeats > 1 else "")
        sessions.append(harness.RecordSession(
            arms=[(n, *spec[n]) for n in s.cells], points=s.points,
            point_folders={k: dest / v for k, v in s.point_folders.items()},
            prompt_input_tokens=s.prompt_input_tokens, prompt_source=s.prompt_source, suffix=suffix,
            baseline_cell=baseline))
    served = m.configs[baseline]["template"].get("served_model")
    loads = [f"c={p.concurrency}" if p.concurrency is not None else f"{p.request_rate:g} req/s"
             for p in m.sessions[0].points]
    title = (f"{m.title or 'Sweep ' + m.sweep}: {m.group.label}: {' vs '.join(c.name for c in m.cells)} "
             f"at {', '.join(loads)} ({m.mode} pairing)")
    engines = {e.cell: e for e in m.engines}
    record = harness.build_group_record(
        sessions, plan_client, served, ledger, rid, m.ledger_ids[baseline], title, _body(m),
        commands={n: e.command for n, e in engines.items()}, versions={n: e.version for n, e in engines.items()},
        vary_sizes=len(grid) > 1)
    return rid, record


def harness_client(m: GroupManifest) -> Any:
    from benchledger.sweep.spec import ClientGrid

    return ClientGrid.model_validate(m.configs[m.cells[0].name]["client"])


LEDGER_ID_KINDS = {"model": "model", "engine": "engine", "accelerator": "accelerator", "weights": "format",
                   "kv_cache": "format"}


def check_ledger_ids(plan: Plan, ledger: Path) -> None:
    """Refuse, before anything runs, ledger ids the records would cite that the ledger does not hold as that kind
    (a ledger not created yet is checked against the bundled reference records it will start with; the demo's
    ids pass when the file says ``references: demo``)."""
    from benchledger.ledger.paths import bundled_ledger_dir
    from benchledger.ledger.store import Ledger

    root = ledger if ledger.exists() and any(ledger.iterdir()) else bundled_ledger_dir()
    held = Ledger.load(root).records
    demo = set(harness.DEMO_IDS.values()) if plan.sweep.references == "demo" else set()
    problems: list[str] = []
    for cell in plan.cells:
        for field_name, ref in resolve_ledger_ids(plan, cell).items():
            kind = LEDGER_ID_KINDS.get(field_name)
            if kind is None or ref is None or ref in demo:
                continue
            found = held.get(ref)
            if found is None:
                problems.append(f"servers.{cell.server}.ledger.{field_name} {ref!r}: no such record in {root}")
            elif getattr(found, "kind", None) != kind:
                problems.append(f"servers.{cell.server}.ledger.{field_name} {ref!r}: that record is of kind "
                                f"{found.kind}, not {kind}")
    if problems:
        unique = sorted(set(problems))
        more = f" (and {len(unique) - 3} more)" if len(unique) > 3 else ""
        raise SweepError("--record: " + "; ".join(unique[:3]) + more)


def collect(sweep: SweepDir, ledger: Path) -> CollectResult:
    """Write a record per committed group into ``ledger`` (created with the reference records when absent), audit."""
    from benchledger.audit import run_audit
    from benchledger.ledger.io import write_record
    from benchledger.ledger.scaffold import init_ledger
    from benchledger.ledger.store import Ledger

    plan = sweep.read_plan()
    done = [g for g in plan.groups if sweep.is_done(g)]
    result = CollectResult(ledger=ledger, missing=[g.folder for g in plan.groups if not sweep.is_done(g)])
    if not done:
        raise SweepError(f"{sweep.root}: no group is committed yet; nothing to record")
    if not ledger.exists() or not any(ledger.iterdir()):
        init_ledger(ledger, with_reference=True)
        result.initialised = True
    if plan.sweep.references == "demo":
        harness.check_demo_ids()
        harness.ensure_demo_references(ledger)
    for group in done:
        rid, record = build(sweep, group, ledger)
        result.records[rid] = write_record(ledger, record)
    report = run_audit(Ledger.load(ledger))
    result.findings = [f for f in report.findings if getattr(f, "record", None) in result.records]
    result.audit_errors = sum(1 for f in result.findings if f.severity == "error")
    return result


__all__ = ["LEDGER_ID_KINDS", "CollectResult", "build", "check_ledger_ids", "collect", "record_id"]
