"""Run ids are unique slugs; the run folder enters the ledger whole or not at all, and nothing old is deleted."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from benchledger.bench.record import place_run_folder
from benchledger.bench.session import new_run_id
from benchledger.errors import BenchError
from benchledger.schema.provenance import SLUG_PATTERN


def test_run_ids_are_unique_slugs_even_within_one_second() -> None:
    ids = [new_run_id("bench") for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(SLUG_PATTERN, i) for i in ids)


def _run(tmp: Path) -> Path:
    out = tmp / "scratch"
    (out / "base").mkdir(parents=True, exist_ok=True)
    (out / "base" / "requests.jsonl").write_text('{"ok": true}\n')
    return out


def test_the_copy_is_renamed_into_place(tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    dest = place_run_folder(_run(tmp_path), root, "r1")
    assert dest == root / "runs" / "r1" and (dest / "base" / "requests.jsonl").exists()
    assert [p.name for p in (root / "runs").iterdir()] == ["r1"]


def test_an_existing_folder_is_refused_or_moved_aside_never_deleted(tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    old = root / "runs" / "r1"
    old.mkdir(parents=True)
    (old / "reviewed.txt").write_text("keep me")
    with pytest.raises(BenchError, match="exists"):
        place_run_folder(_run(tmp_path), root, "r1")
    assert (old / "reviewed.txt").read_text() == "keep me"
    assert sorted(p.name for p in (root / "runs").iterdir()) == ["r1"]  # no temporary left behind
    place_run_folder(_run(tmp_path), root, "r1", overwrite=True)
    aside = [p for p in (root / "runs").iterdir() if p.name.startswith("r1.replaced-")]
    assert len(aside) == 1 and (aside[0] / "reviewed.txt").read_text() == "keep me"


def test_a_failed_copy_leaves_nothing(tmp_path: Path) -> None:
    out = _run(tmp_path)
    (out / "base" / "dangling").symlink_to(tmp_path / "missing")
    root = tmp_path / "ledger"
    with pytest.raises(shutil.Error, match="No such file"):
        place_run_folder(out, root, "r1")
    assert list((root / "runs").iterdir()) == []


@pytest.mark.parametrize("bad", ["../../victim", "a/b", "", "UPPER"])
def test_a_non_slug_id_is_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(BenchError, match="not a slug"):
        place_run_folder(_run(tmp_path), tmp_path / "ledger", bad)
    assert not (tmp_path / "victim").exists()
