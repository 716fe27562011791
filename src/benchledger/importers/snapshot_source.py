"""The source record of one file read from a stored git snapshot (``git_snapshot.py``): the file stored whole
(``stored_files.py``) after an intro naming the repository, commit and what was imported, and the rows skipped.
Shared by the table importers that read snapshots (``llama_bench_tables.py``, ``device_speed_tables.py``,
``device_count_tables.py``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from benchledger.errors import ImportFormatError
from benchledger.importers.common import record_id, slugify
from benchledger.importers.context import ImportContext
from benchledger.importers.git_snapshot import Snapshot, StoredFile
from benchledger.importers.stored_files import storable, stored_block
from benchledger.schema import HistoryEntry, Source

T = TypeVar("T")


def markdown_tables(path: Path, find: Callable[[str], list[T]], wanted: str,
                    ) -> tuple[Snapshot, dict[str, StoredFile], dict[str, list[T]]]:
    """The snapshot at ``path``, its Markdown files, and the tables ``find`` reads from each file that has any
    (in path order); no such file at all is an ``ImportFormatError`` naming ``wanted`` and the commit."""
    snap = Snapshot.open(path)
    files = snap.read([p for p in sorted(snap.blobs) if p.lower().endswith(".md")])
    found = {p: ts for p, f in files.items() if (ts := find(f.text))}
    if not found:
        raise ImportFormatError(path, "*.md", f"no {wanted} at commit {snap.commit}")
    return snap, files, found


def owner_repo(snap: Snapshot) -> str:
    """``owner/name`` of the snapshot's repository."""
    return "/".join(snap.repo_url.rstrip("/").split("/")[-2:])


def snapshot_source_id(snap: Snapshot, file: StoredFile) -> str:
    """The id of the source that will store ``file`` whole; refused (``ImportFormatError``, naming the file) when
    the file cannot be stored whole."""
    why = storable(file.text)
    if why is not None:
        raise ImportFormatError(Path(snap.git_dir) / file.path, "", f"cannot be stored whole: {why}")
    return record_id(slugify(f"{owner_repo(snap)}-{file.path}")[:60].strip("-"), snap.repo_url, snap.commit,
                     file.path)


def created(ctx: ImportContext, format_name: str, why: str) -> HistoryEntry:
    """The history entry of a record this import creates."""
    return HistoryEntry(date=ctx.options.retrieved, change=f"created by benchledger import {format_name}", why=why,
                        numbers_changed=True)


def snapshot_file_source(snap: Snapshot, file: StoredFile, ctx: ImportContext, *, source_id: str, format_name: str,
                         label: str, imported: str, skipped: list[str], skipped_heading: str = "Not imported:",
                         why: str) -> Source:
    """The source storing ``file`` whole; ``imported`` says which of its tables were imported (one sentence),
    ``skipped`` lists what was not, ``label`` ends the title."""
    intro = (f"{snap.repo_url} at commit {snap.commit} ({snap.committed.isoformat()}), file `{file.path}`, stored "
             f"whole below, byte for byte, after a line naming its path, git blob id and sha256. {imported}\n")
    notes = "".join(f"- {s}\n" for s in skipped)
    body = intro + (f"\n{skipped_heading}\n\n{notes}" if notes else "") + "\n" + stored_block(
        file.path, file.blob, file.sha256, file.text)
    publisher = owner_repo(snap)
    return Source(
        kind="source", id=source_id, title=f"{publisher} {file.path} at {snap.commit[:7]} ({label})",
        url=f"{snap.repo_url}/blob/{snap.commit}/{file.path}", source_type="github-file", publisher=publisher,
        published=snap.committed, retrieved=ctx.options.retrieved,
        retrieved_via=f"benchledger import {format_name} (stored snapshot at commit {snap.commit})",
        sha256=hashlib.sha256(body.encode("utf-8")).hexdigest(),
        history=[created(ctx, format_name, why)], body=body)


__all__ = ["created", "owner_repo", "snapshot_file_source", "snapshot_source_id"]
