"""The cache's new database files (catalog/dbfiles.py): made under the writer's lock, copied ahead in the
background, removed with their lock unless published, left alone by other writers while held."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchledger.catalog.cache import POINTER
from benchledger.catalog.dbfiles import NewDatabase, remove_abandoned, remove_in_background, write_database


def _source(folder: Path, size: int = 3 << 20) -> Path:
    source = folder / "index-0123456789abcdef0123456789abcdef.duckdb"
    source.write_bytes(os.urandom(size))
    (folder / POINTER).write_text(source.name + "\n", encoding="utf-8")
    return source


def test_a_copy_made_ahead_is_the_source_and_is_published_whole(tmp_path: Path) -> None:
    source = _source(tmp_path)
    expected = source.read_bytes()
    new = NewDatabase(tmp_path)
    new.copy_ahead(source)
    status, db = write_database(tmp_path, lambda made: (made.copy_of(source), "copied")[1], new)
    assert (status, db) == ("copied", new.path)
    assert db.read_bytes() == expected
    assert (tmp_path / POINTER).read_text(encoding="utf-8").strip() == db.name
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([POINTER, db.name, source.name])  # (the caller's)
    remove_in_background(source).join()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([POINTER, db.name])


def test_a_new_database_not_published_leaves_nothing_copy_or_lock(tmp_path: Path) -> None:
    source = _source(tmp_path)
    new = NewDatabase(tmp_path)
    assert (tmp_path / f".{new.name}.lock").exists()
    new.copy_ahead(source)  # (closed while the copy may still be under way: it is waited for, then removed)
    new.close()
    new.close()  # (once)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([POINTER, source.name])


def test_a_fill_that_fails_after_the_copy_leaves_nothing_and_keeps_the_previous(tmp_path: Path) -> None:
    source = _source(tmp_path)
    new = NewDatabase(tmp_path)
    new.copy_ahead(source)

    def fill(made: NewDatabase) -> str:
        made.copy_of(source)
        raise KeyboardInterrupt  # (as Ctrl-C during the update)

    with pytest.raises(KeyboardInterrupt):
        write_database(tmp_path, fill, new)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([POINTER, source.name])
    assert (tmp_path / POINTER).read_text(encoding="utf-8").strip() == source.name


def test_a_failed_copy_ahead_is_raised_where_the_copy_is_used(tmp_path: Path) -> None:
    source = _source(tmp_path)
    missing = tmp_path / "index-ffffffffffffffffffffffffffffffff.duckdb"
    new = NewDatabase(tmp_path)
    new.copy_ahead(missing)
    with pytest.raises(FileNotFoundError):
        new.copy_of(missing)
    new.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([POINTER, source.name])


def test_a_copy_of_another_source_is_made_there_and_then(tmp_path: Path) -> None:
    source = _source(tmp_path)
    other = tmp_path / "other.duckdb"
    other.write_bytes(b"other bytes")
    new = NewDatabase(tmp_path)
    new.copy_ahead(source)
    new.copy_of(other)
    assert new.path.read_bytes() == b"other bytes"
    new.close()


def test_another_writer_leaves_a_new_database_alone_while_it_is_held(tmp_path: Path) -> None:
    source = _source(tmp_path)
    new = NewDatabase(tmp_path)
    new.copy_ahead(source)
    new.copy_of(source)
    remove_abandoned(tmp_path)  # (as another command's refresh does)
    assert new.path.exists() and (tmp_path / f".{new.name}.lock").exists()
    new.close()
