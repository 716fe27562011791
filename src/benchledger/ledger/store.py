"""A loaded ledger: every record by id, plus the files that failed to load (for the audit to report)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from benchledger.errors import LedgerError, RecordError
from benchledger.ledger.collector import freeze_for_process, gc_paused
from benchledger.ledger.io import identity_problems, load_record_bytes, read_record_bytes
from benchledger.ledger.paths import (
    iter_record_files,
    misplaced_files,
    require_ledger_layout,
    resolve_ledger_dir,
)
from benchledger.schema import Record, RecordBase

T = TypeVar("T", bound=RecordBase)


@dataclass
class Ledger:
    """Records of one ledger folder. ``errors`` holds files that did not parse (non-strict load)."""

    root: Path
    records: dict[str, Record] = field(default_factory=dict)
    paths: dict[str, Path] = field(default_factory=dict)
    errors: list[RecordError] = field(default_factory=list)
    duplicate_ids: list[tuple[str, Path, Path]] = field(default_factory=list)

    @classmethod
    def load(cls, root: Path | str | None = None, *, strict: bool = False, require_layout: bool = False) -> Ledger:
        """Load every record; ``strict`` raises the first ``RecordError`` (identity problems included) instead of
        collecting it; ``require_layout`` refuses a folder with no kind folder (commands that read a ledger)."""
        ledger = cls(root=resolve_ledger_dir(root))
        if require_layout:
            require_ledger_layout(ledger.root)
        with gc_paused():
            ledger._load_files(strict)
        return ledger

    def _load_files(self, strict: bool) -> None:
        for error in misplaced_file_errors(self.root):
            self._failed(error, strict)
        for path in iter_record_files(self.root):
            try:
                record = load_record_bytes(path, read_record_bytes(path))
            except RecordError as exc:
                self._failed(exc, strict)
                continue
            if strict:
                for problem in identity_problems(path, record):
                    raise problem
            self.add(path, record, strict=strict)

    def _failed(self, error: RecordError, strict: bool) -> None:
        if strict:
            raise error
        self.errors.append(error)

    def failure_summary(self) -> str:
        """One line: how many files failed to load (and so are missing from every result), and the first one."""
        total = len(self.errors) + len(self.records) + len(self.duplicate_ids)
        return (f"{len(self.errors)} of {total} files in {self.root} failed to load and are left out "
                f"(first: {self.errors[0]}); `benchledger audit` lists them all")

    def load_error(self, record_id: str) -> RecordError | None:
        """The error of the file named ``<record_id>.<suffix>`` that failed to load, if one did."""
        return next((e for e in self.errors if e.path.stem == record_id), None)

    def add(self, path: Path, record: Record, *, strict: bool = False) -> None:
        """Add a record read from ``path`` (files in ``iter_record_files`` order: the first file of an id wins)."""
        if record.id in self.records:
            self.duplicate_ids.append((record.id, self.paths[record.id], path))
            if strict:
                raise RecordError(path, None, "id", f"id {record.id!r} is also used by {self.paths[record.id]}")
            return
        self.records[record.id] = record
        self.paths[record.id] = path

    def get(self, record_id: str) -> Record:
        """The record with this id (``LedgerError`` when absent)."""
        try:
            return self.records[record_id]
        except KeyError:
            error = self.load_error(record_id)
            if error is not None:
                raise LedgerError(f"record {record_id!r} does not load: {error}") from None
            raise LedgerError(f"no record with id {record_id!r} in {self.root}") from None

    def of_kind(self, kind: str) -> list[Record]:
        """Records of one kind, sorted by id."""
        return sorted((r for r in self.records.values() if r.kind == kind), key=lambda r: r.id)

    def typed(self, kind: str, cls: type[T]) -> list[T]:
        """Records of one kind as their concrete class."""
        return [r for r in self.of_kind(kind) if isinstance(r, cls)]

    def __iter__(self) -> Iterator[Record]:
        return iter(sorted(self.records.values(), key=lambda r: (r.kind, r.id)))

    def __len__(self) -> int:
        return len(self.records)


def misplaced_file_errors(root: Path, found: Iterable[Path] | None = None) -> list[RecordError]:
    """One ``files.in-subfolder`` error per file in a sub-folder of a kind folder: never loaded, never silent.

    ``found``: those files when already known (``misplaced_files`` of this ledger), else they are listed here."""
    return [RecordError(path, None, "", f"records are read only from {path.relative_to(root).parts[0]}/ itself, "
                        "not from its sub-folders: this file is not loaded (move it up)", code="files.in-subfolder")
            for path in (misplaced_files(root) if found is None else found)]


__all__ = ["Ledger", "freeze_for_process", "gc_paused", "misplaced_file_errors"]
