"""Run outputs on disk: raw requests appended line by line, JSON files written atomically, content hashes.

``requests.jsonl`` is opened for append and flushed after every line, so a crash or SIGINT loses nothing that
was measured and never leaves a half line. Summaries and other JSON files go through a temporary file and
``os.replace`` so a reader never sees a partial file. NaN floats are written as ``null``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path
from typing import IO, Any

REQUESTS_FILE = "requests.jsonl"


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def dumps(value: Any) -> str:
    """Deterministic JSON (sorted keys, NaN → null)."""
    try:  # fast path: nothing to clean (walking every float of a record costs more than encoding it)
        return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except ValueError:
        return json.dumps(_clean(value), sort_keys=True, ensure_ascii=False)


def dumps_strict(value: Any) -> str:
    """Indented JSON for people and pipes: NaN/Infinity → null (never invalid JSON), other objects as text."""
    return json.dumps(_clean(value), indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False, default=str)


class RequestsWriter:
    """Appends one JSON object per line to ``folder/requests.jsonl``; flushes each line."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / REQUESTS_FILE
        self._fh: IO[str] | None = self.path.open("a", encoding="utf-8")
        self.count = 0

    def write(self, record: dict[str, Any]) -> None:
        """Append ``record`` as one line and flush it to the OS."""
        self.write_line(dumps(record))

    def write_line(self, line: str) -> None:
        """Append one already-encoded JSON object (no newline inside) and flush it to the OS."""
        if self._fh is None:
            raise ValueError(f"{self.path} is closed")
        self._fh.write(line + "\n")
        self._fh.flush()
        self.count += 1

    def close(self) -> None:
        """Flush to disk and close."""
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            self._fh = None


def write_json(path: Path, value: Any) -> Path:
    """Write ``value`` as indented JSON atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(_clean(value), indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False)
                   + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def write_text(path: Path, text: str) -> Path:
    """Write text atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


RUN_FILES = (REQUESTS_FILE, "summary.json", "environment.json", "comparison.json")


def run_files_in(folder: Path) -> list[Path]:
    """Files of a run already in ``folder`` (at its top, in an arm folder, or in a load point's arm folder): a
    new run must not write there, or its raw data would mix with the other run's."""
    if not folder.is_dir():
        return []
    return sorted(p for pattern in ("", "*/", "*/*/") for name in RUN_FILES for p in folder.glob(pattern + name))


def read_requests(folder: Path) -> list[dict[str, Any]]:
    """All complete lines of ``folder/requests.jsonl`` (a torn last line, if any, is skipped)."""
    path = folder / REQUESTS_FILE
    out: list[dict[str, Any]] = []
    if not path.exists():
        return out
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


__all__ = ["REQUESTS_FILE", "RUN_FILES", "RequestsWriter", "dumps", "dumps_strict", "read_requests", "run_files_in", "sha256_file",
           "write_json", "write_text"]
