"""Helpers for importer tests: options with a fixed date, snapshots, audit errors (ledgers: ``ledger_builder``)."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import subprocess
from pathlib import Path

from benchledger.audit import run_audit
from benchledger.importers import import_files
from benchledger.importers.common import ImportOptions
from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "fixtures"
RETRIEVED = dt.date(2026, 11, 30)


def options(**kw: object) -> ImportOptions:
    return ImportOptions(retrieved=RETRIEVED, **kw)  # type: ignore[arg-type]


def snapshot(root: Path) -> dict[str, str]:
    """Every file under a folder → its sha256 (to prove that nothing was written)."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def audit_errors(root: Path) -> list[str]:
    report = run_audit(Ledger.load(root))
    return [f"{f.code} {f.record} {f.field}: {f.message}" for f in report.findings if f.severity == "error"]


def benchmark(root: Path, record_id: str) -> Benchmark:
    record = Ledger.load(root).get(record_id)
    assert isinstance(record, Benchmark)
    return record


def results(record: Benchmark, arm: str | None = None) -> dict[tuple[str, str, str | None], float]:
    """(metric, stat, definition) → value of one arm (the only arm by default)."""
    chosen = record.arms[0] if arm is None else next(a for a in record.arms if a.name == arm)
    return {(r.metric, r.stat, r.definition): r.value for r in chosen.results}


def git(repo: Path, *args: str, date: str = "2024-01-01T12:00:00Z") -> str:
    """``git -C repo args`` with a fixed author, committer and date (a snapshot's commit date is its ``published``)."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.org", "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env,
                          timeout=60).stdout


def snapshot_repo(tmp_path: Path, files: dict[str, str], url: str, date: str) -> Path:
    """A one-commit git repository at ``tmp_path/snapshot`` holding ``files`` (path → text), origin ``url``."""
    root = tmp_path / "snapshot"
    root.mkdir()
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    for args in (("init", "-q"), ("config", "core.autocrlf", "false"), ("remote", "add", "origin", url + ".git"),
                 ("add", "-A"), ("commit", "-q", "-m", "results")):
        git(root, *args, date=date)
    return root


def assert_reimport_changes_nothing(format_name: str, paths: list[Path], root: Path) -> None:
    """Importing ``paths`` a second time reports every record unchanged and leaves every ledger byte as it was."""
    import_files(format_name, paths, root, options())
    before = snapshot(root)
    again = import_files(format_name, paths, root, options())
    assert {o.status for o in again} == {"unchanged"}
    assert snapshot(root) == before
