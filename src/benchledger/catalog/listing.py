"""The record files of an index update: each file's stat, and what loading it gave (as cached, or read again)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from benchledger.catalog.cachetables import FILE_COLUMNS
from benchledger.catalog.entries import Entry
from benchledger.catalog.scan import FileStat
from benchledger.errors import RecordError
from benchledger.ledger.rows import Row

Loaded = tuple[str | None, str | None, int | None, str | None, str | None, str | None]
"""A file's ``_cache_files`` columns after its stat: record id, kind, and the load error's line, field,
message and code (``CachedState.loaded``)."""


@dataclass(frozen=True)
class Listing:
    """The record files of an update: the scan's stats, what loading each unchanged file gave (as cached) and
    the entries of the files read again; no object per unchanged file (10,000 of them at 10,000 records)."""

    files: dict[str, FileStat]
    loaded: dict[str, Loaded]
    fresh: dict[str, Entry]

    def each(self) -> Iterator[tuple[str, str | None, str | None]]:
        """``(path, record id, kind)`` of every file, in scan order."""
        fresh, loaded = self.fresh, self.loaded
        for rel in self.files:
            entry = fresh.get(rel)
            if entry is None:
                yield rel, *loaded[rel][:2]
            else:
                yield rel, entry.record_id, entry.kind

    def ids(self) -> list[str]:
        """The record id of every file that holds one (not in scan order)."""
        files, fresh = self.files, self.fresh
        ids = [row[0] for rel, row in self.loaded.items() if row[0] and rel in files and rel not in fresh]
        ids.extend(e.record_id for e in fresh.values() if e.record_id)
        return ids

    def kinds(self) -> dict[str, str]:
        """The kind of every record id (what the ``split`` checks resolve ids against; no id is used twice)."""
        files, fresh = self.files, self.fresh
        kinds = {row[0]: row[1] for rel, row in self.loaded.items()
                 if row[0] and row[1] and rel in files and rel not in fresh}
        kinds.update((e.record_id, e.kind) for e in fresh.values() if e.record_id and e.kind)
        return kinds

    def errors(self, root: Path) -> list[RecordError]:
        """The load error of every file that failed to load, in scan order (as ``Entry.load_error`` gives it)."""
        files, fresh = self.files, self.fresh
        failed = {rel for rel, row in self.loaded.items() if row[4] is not None and rel in files}
        out: list[RecordError] = []
        for rel in sorted(failed | fresh.keys(), key=lambda rel: rel.split("/", 1)):  # (scan order)
            entry = fresh.get(rel)
            if entry is None:
                _, _, line, field, message, code = self.loaded[rel]
                assert message is not None
                out.append(RecordError(root / rel, line, field or "", message, code=code or "schema.invalid"))
            elif (error := entry.load_error(root)) is not None:
                out.append(error)
        return out

    def stats(self) -> Iterator[FileStat]:
        """Every file's stat, in scan order (a file read again: the stat of the bytes read)."""
        for rel, stat in self.files.items():
            entry = self.fresh.get(rel)
            yield stat if entry is None else entry.stat

    def rows(self, paths: Iterable[str]) -> Iterator[Row]:
        """``_cache_files`` rows of these paths (those still there)."""
        for rel in paths:
            entry = self.fresh.get(rel)
            if entry is not None:
                yield entry.row()
            elif rel in self.files:
                yield dict(zip(FILE_COLUMNS, (*self.files[rel], *self.loaded[rel]), strict=True))

    def context_files(self) -> list[tuple[str, str]]:
        """``(path, sha256)`` of every file holding a record of another kind than benchmark, in scan order (what
        the checks of a benchmark may read besides it)."""
        return [(rel, self.files[rel].sha256) for rel, record_id, kind in self.each()
                if kind not in (None, "benchmark") and record_id is not None]


__all__ = ["Listing", "Loaded"]
