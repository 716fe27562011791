"""``ledger.paths.misplaced_files``: every file in a sub-folder of a kind folder, in name order; the record files
beside them, hidden entries and other folders are not."""

from __future__ import annotations

from pathlib import Path

from benchledger.ledger.paths import misplaced_files


def test_misplaced_files_are_the_files_in_sub_folders_of_kind_folders(tmp_path: Path) -> None:
    for rel in ["benchmarks/a.md", "benchmarks/b/x.md", "benchmarks/b/deeper/y.txt", "benchmarks/a2/z.md",
                "benchmarks/.hidden/h.md", "benchmarks/b/.h.md", "models/m/n.md", "runs/r/raw.jsonl", "notes/q.md"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x", encoding="utf-8")
    (tmp_path / "sources").write_text("not a folder", encoding="utf-8")
    (tmp_path / "engines").mkdir()
    (tmp_path / "engines" / "linked").symlink_to(tmp_path / "benchmarks" / "a2", target_is_directory=True)
    found = [p.relative_to(tmp_path).as_posix() for p in misplaced_files(tmp_path)]
    assert found == ["benchmarks/a2/z.md", "benchmarks/b/deeper/y.txt", "benchmarks/b/x.md", "engines/linked/z.md",
                     "models/m/n.md"]
