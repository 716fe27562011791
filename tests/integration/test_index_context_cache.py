"""An index update reads the non-benchmark records from the cache (``catalog/contextcache.py``), not their
files; a kept copy that is damaged, foreign or kept for other files is never used, and the update equals a
fresh build either way."""

from __future__ import annotations

import pickle
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest
from test_index_cache import apply, assert_cache_equals_fresh, make_ledger

from benchledger.catalog.cache import current_db, open_index
from benchledger.catalog.contextcache import (
    CONTEXT_TABLE,
    create_context_table,
    dump_context,
    keep_context,
    kept_context,
    load_context,
)
from benchledger.ledger import Ledger, load_record

LATER = lambda: time.time_ns() + 60 * 10**9  # noqa: E731 - no file is racy (written within 2 s) at this clock
REFERENCE_FOLDERS = ("sources", "models", "accelerators", "engines", "formats")


def _kept(root: Path) -> tuple[str, bytes]:
    with duckdb.connect(str(current_db(root)), read_only=True) as con:
        row = con.execute(f"SELECT digest, records FROM {CONTEXT_TABLE}").fetchone()
    assert row is not None
    return str(row[0]), bytes(row[1])


def _replace_kept(root: Path, digest: str, blob: bytes) -> None:
    with duckdb.connect(str(current_db(root))) as con:
        con.execute(f"UPDATE {CONTEXT_TABLE} SET digest = ?, records = ?", [digest, blob])


def test_an_update_reads_no_reference_record_file(tmp_path: Path) -> None:
    root = make_ledger(tmp_path / "ledger")
    open_index(root, clock=LATER).close()
    opened: list[str] = []
    watched = [f"{root / folder}/" for folder in REFERENCE_FOLDERS]  # (the files in them: the folders are listed)

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and isinstance(args[0], str | Path) and str(args[0]).startswith(tuple(watched)):
            opened.append(str(args[0]))

    sys.addaudithook(hook)  # (audit hooks stay for the process: this one only records opens in ``watched``)
    apply(root, "write", "test-bench", "", 9.0)
    index = open_index(root, clock=LATER)
    status = index.status
    index.close()
    watched = [str(tmp_path / "elsewhere")]  # the hook stops recording
    assert status.startswith("updated 1 of")
    assert opened == []
    assert assert_cache_equals_fresh(root, tmp_path / "s") == "current"


class _RunsCode:
    """Unpickled, it would write a file (a blob that names a function is refused before anything runs)."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.write_text, (self.marker, "ran"))


@pytest.mark.parametrize("damage", ["garbage", "truncated", "runs-code", "other-files", "not-records"])
def test_a_damaged_or_foreign_kept_context_is_parsed_again(tmp_path: Path, damage: str) -> None:
    """The records are parsed from their files (and kept again): the update equals a fresh build, nothing runs."""
    root = make_ledger(tmp_path / "ledger")
    open_index(root, clock=LATER).close()
    digest, blob = _kept(root)
    marker = tmp_path / "marker"
    kept = load_context(blob)
    assert kept is not None and {rel.split("/")[0] for rel, _ in kept} == set(REFERENCE_FOLDERS)
    if damage == "other-files":  # kept for other bytes of a source: its excerpt differs from the file's
        source = next(i for i, (rel, _) in enumerate(kept) if rel.startswith("sources/"))
        rel, record = kept[source]
        kept[source] = (rel, record.model_copy(update={"body": "another excerpt"}))
        replaced = digest[::-1], dump_context(kept)
    else:
        replaced = digest, {"garbage": b"\x80\x05not a pickle", "truncated": blob[: len(blob) // 2],
                            "runs-code": pickle.dumps([("sources/x.md", _RunsCode(marker))]),
                            "not-records": pickle.dumps([("sources/x.md", "text")])}[damage]
    _replace_kept(root, *replaced)
    apply(root, "write", "test-bench", "", 9.0)
    index = open_index(root, clock=LATER)
    status = index.status
    index.close()
    assert status.startswith("updated 1 of")
    assert not marker.exists()
    assert assert_cache_equals_fresh(root, tmp_path / "s") == "current"
    digest_after, blob_after = _kept(root)
    assert digest_after == digest
    assert load_context(blob_after) == load_context(blob)


def test_the_kept_records_are_the_parsed_ones(tmp_path: Path) -> None:
    """Equal, field for field and in the same order, to what loading the files gives (fields set included)."""
    root = make_ledger(tmp_path / "ledger")
    open_index(root).close()
    kept = load_context(_kept(root)[1])
    assert kept is not None
    ledger = Ledger.load(root)
    assert [(rel, r.model_fields_set) for rel, r in kept] == [
        (ledger.paths[r.id].relative_to(root).as_posix(), r.model_fields_set) for _, r in kept]
    assert [r for _, r in kept] == [ledger.records[r.id] for _, r in kept]
    assert len(kept) == sum(1 for r in ledger if r.kind != "benchmark")


def test_records_too_large_to_keep_are_not_kept_and_an_update_parses_them(tmp_path: Path) -> None:
    con = duckdb.connect(":memory:")
    create_context_table(con)
    root = make_ledger(tmp_path / "ledger")
    records = [(p.relative_to(root).as_posix(), load_record(p)) for p in sorted(root.glob("sources/*.md"))]
    assert keep_context(con, "d", records)
    assert kept_context(con, "d") == records and kept_context(con, "other") is None
    assert not keep_context(con, "d", records, limit=len(dump_context(records)) - 1)
    assert kept_context(con, "d") is None  # (the one kept before is gone too)
