"""An import plan: every record and run artifact an import will write, built and checked in memory first.

``check_plan`` proves the plan is sound before anything touches the disk: each record survives the canonical
dump → parse round trip, every quote is found verbatim in its source's excerpt, every measured number points at
an artifact of the plan (or one already stored) with the right sha256. ``apply_plan`` then writes artifacts,
sources and reference placeholders, and benchmark records last, each atomically. Re-importing is idempotent:
a record file that already exists is never rewritten (``unchanged`` when identical, ``kept`` when a person has
edited it since).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from benchledger.errors import BenchledgerError, RecordError
from benchledger.ledger.io import atomic_write_bytes, atomic_write_text, dump_record, parse_record
from benchledger.ledger.paths import record_path
from benchledger.schema import Known, Quantity, RecordBase, Source

WriteStatus = Literal["written", "unchanged", "kept", "would-write"]
_WRITE_ORDER = {"source": 0, "accelerator": 1, "engine": 1, "model": 1, "format": 1, "interconnect": 1,
                "benchmark": 2, "calibration": 2}


@dataclass(frozen=True)
class Artifact:
    """A file stored under the ledger root (relative path) as the raw evidence of measured numbers."""

    rel_path: str
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


@dataclass
class ImportPlan:
    """Records and artifacts one import will write."""

    records: list[RecordBase] = field(default_factory=list)
    artifacts: list[Artifact] = field(default_factory=list)

    def add(self, *records: RecordBase) -> None:
        for record in records:
            if not any(r.id == record.id and r.kind == record.kind for r in self.records):  # type: ignore[attr-defined]
                self.records.append(record)

    def add_artifact(self, rel_path: str, data: bytes) -> None:
        if not any(a.rel_path == rel_path for a in self.artifacts):
            self.artifacts.append(Artifact(rel_path, data))

    def benchmark_ids(self) -> list[str]:
        return [r.id for r in self.records if getattr(r, "kind", None) == "benchmark"]


@dataclass(frozen=True)
class WriteOutcome:
    """What happened to one record file."""

    kind: str
    record_id: str
    path: Path
    status: WriteStatus


def iter_numbers(obj: object) -> Iterator[Quantity | Known]:
    """Every ``Quantity`` (incl. ``Result``) and ``Known`` condition inside a schema object."""
    if isinstance(obj, (Quantity, Known)):
        yield obj
    if isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            yield from iter_numbers(getattr(obj, name))
    elif isinstance(obj, list):
        for item in obj:
            yield from iter_numbers(item)


def check_plan(plan: ImportPlan, root: Path, existing: dict[str, RecordBase]) -> None:
    """Raise ``BenchledgerError`` unless every record, quote and artifact of the plan is sound."""
    sources: dict[str, Source] = {r.id: r for r in existing.values() if isinstance(r, Source)}
    sources.update({r.id: r for r in plan.records if isinstance(r, Source)})
    artifacts = {(a.rel_path, a.sha256) for a in plan.artifacts}
    for record in plan.records:
        kind = getattr(record, "kind")  # noqa: B009
        path = record_path(root, kind, record.id)
        try:
            again = parse_record(dump_record(record), path)
        except RecordError as exc:
            raise BenchledgerError(f"internal: imported record does not round-trip: {exc}") from None
        if again != record:
            raise BenchledgerError(f"internal: imported record {record.id} changes on dump → parse")
        for item in iter_numbers(record):
            _check_evidence(record, item, sources, artifacts, root)


def _check_evidence(record: RecordBase, item: Quantity | Known, sources: dict[str, Source],
                    artifacts: set[tuple[str, str]], root: Path) -> None:
    quote = item.quote
    if quote:
        source_id = item.source or (record.sources[0] if record.sources else None)
        source = sources.get(source_id or "")
        if source is None:
            raise BenchledgerError(f"{record.id}: quote cites source {source_id!r}, which is neither imported "
                                   "nor in the ledger")
        if quote not in source.body:
            raise BenchledgerError(f"{record.id}: quote {quote!r} is not in the excerpt of source {source.id}")
    if isinstance(item, Quantity) and item.provenance == "measured":
        run, sha = item.run or "", item.sha256 or ""
        if (run, sha) in artifacts:
            return
        stored = root / run
        if not (stored.is_file() and hashlib.sha256(stored.read_bytes()).hexdigest() == sha):
            raise BenchledgerError(f"{record.id}: measured value points at {run} (sha256 {sha[:12]}…), "
                                   "which is neither imported now nor stored with that hash")


def apply_plan(plan: ImportPlan, root: Path, *, dry_run: bool = False) -> list[WriteOutcome]:
    """Write the plan under ``root`` (artifacts, then sources/references, then benchmarks)."""
    outcomes: list[WriteOutcome] = []
    if not dry_run:
        for artifact in plan.artifacts:
            target = root / artifact.rel_path
            if not (target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == artifact.sha256):
                atomic_write_bytes(target, artifact.data)
    for record in sorted(plan.records, key=lambda r: _WRITE_ORDER.get(getattr(r, "kind"), 3)):  # noqa: B009
        kind = getattr(record, "kind")  # noqa: B009
        path = record_path(root, kind, record.id)
        text = dump_record(record)
        if path.exists():
            status: WriteStatus = "unchanged" if path.read_text(encoding="utf-8") == text else "kept"
        elif dry_run:
            status = "would-write"
        else:
            atomic_write_text(path, text)
            status = "written"
        outcomes.append(WriteOutcome(kind, record.id, path, status))
    return outcomes


__all__ = ["Artifact", "ImportPlan", "WriteOutcome", "apply_plan", "check_plan", "iter_numbers"]
