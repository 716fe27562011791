"""One record file as the cached index knows it: its stat and content hash, and the record id and kind it
holds or why it did not load (``_cache_files`` holds one row per file)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from benchledger.catalog.scan import UNHASHED, FileStat, sha256_bytes
from benchledger.errors import RecordError
from benchledger.ledger.io import load_record_bytes, unreadable
from benchledger.ledger.rows import Row
from benchledger.ledger.store import Ledger


@dataclass(frozen=True)
class Entry:
    """One record file: its stat and hash, and the record id or the load error."""

    stat: FileStat
    record_id: str | None = None
    kind: str | None = None
    error: tuple[int | None, str, str, str] | None = None
    """``(line, field, message, code)`` of a file that failed to load (``RecordError``)."""

    def row(self) -> Row:
        line, field, message, code = self.error or (None, None, None, None)
        return {**self.stat._asdict(), "record_id": self.record_id, "kind": self.kind,
                "err_line": line, "err_field": field, "err_message": message, "err_code": code}

    def load_error(self, root: Path) -> RecordError | None:
        """The ``RecordError`` of a file that failed to load, as the loader raised it."""
        if self.error is None:
            return None
        line, field, message, code = self.error
        return RecordError(root / self.stat.path, line, field, message, code=code)


def load_entry(root: Path, rel: str, stat: FileStat, ledger: Ledger) -> Entry:
    """Parse one file into ``ledger`` (a file that fails to load goes to ``ledger.errors``); its hash is that
    of the bytes parsed.

    A file whose bytes may differ from what the scan saw is marked racy (its stat then vouches for nothing):
    one whose hash differs from the scan's, or, when the scan did not hash it (``scan.UNHASHED``), one whose
    stat after the read differs from the scan's (a write moves the ctime; a write within the same clock tick
    as the scan's stat leaves a file that was racy already)."""
    path = root / rel
    try:
        with path.open("rb") as handle:  # the stat of the very file read
            data = handle.read()
            st = os.fstat(handle.fileno())
    except OSError as exc:  # e.g. removed since the scan: one file that failed to load, its entry racy
        error = unreadable(path, exc)
        ledger.errors.append(error)
        gone = FileStat(rel, UNHASHED, stat.size, stat.mtime_ns, stat.ctime_ns, stat.ino, True)
        return Entry(gone, error=(error.line, error.field, error.message, error.code))
    sha = sha256_bytes(data)
    if stat.sha256 == UNHASHED:
        changed = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino) != (stat.size, stat.mtime_ns, stat.ctime_ns,
                                                                             stat.ino)
    else:
        changed = sha != stat.sha256
    stat = FileStat(rel, sha, stat.size, stat.mtime_ns, stat.ctime_ns, stat.ino, stat.racy or changed)
    try:
        record = load_record_bytes(path, data)
    except RecordError as exc:
        ledger.errors.append(exc)
        return Entry(stat, error=(exc.line, exc.field, exc.message, exc.code))
    ledger.add(path, record)
    return Entry(stat, record.id, record.kind)


__all__ = ["Entry", "load_entry"]
