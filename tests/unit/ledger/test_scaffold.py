"""``benchledger init``: ``--with-reference`` gives a ledger that audits clean (measured reference numbers bring
their run data along); a target that is not an empty folder is refused untouched. A failure half-way leaves
nothing: tests/integration/test_unwritable_outputs.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchledger.audit import run_audit
from benchledger.errors import LedgerError
from benchledger.ledger.scaffold import init_ledger
from benchledger.ledger.store import Ledger


def test_init_with_reference_audits_without_errors(tmp_path: Path) -> None:
    root = init_ledger(tmp_path / "ledger", with_reference=True)
    errors = [f for f in run_audit(Ledger.load(root)).findings if f.severity == "error"]
    assert errors == [], [(f.code, f.record, f.field) for f in errors[:5]]


def test_init_refuses_a_file_or_a_folder_with_anything_in_it_and_touches_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "full"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine\n", encoding="utf-8")
    afile = tmp_path / "afile"
    afile.write_text("mine\n", encoding="utf-8")
    for target in (folder, afile):
        with pytest.raises(LedgerError, match="exists and is not an empty folder"):
            init_ledger(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "full"]  # (no temporary folder left)
    assert [p.name for p in folder.iterdir()] == ["notes.txt"] and afile.read_text(encoding="utf-8") == "mine\n"


def test_init_into_a_new_folder_under_new_parents_makes_them_all(tmp_path: Path) -> None:
    root = init_ledger(tmp_path / "a" / "b" / "ledger")
    assert (root / "benchmarks").is_dir() and (root / "waivers.yaml").read_text(encoding="utf-8") == "[]\n"
    assert sorted(p.name for p in root.parent.iterdir()) == ["ledger"]
