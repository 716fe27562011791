"""Record files ↔ schema objects: strict parsing with ``path:line: field: expected`` errors, canonical dumping,
atomic writes. Loading then dumping a canonical file gives identical bytes.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from benchledger.errors import RecordError
from benchledger.ledger.frontmatter import (
    SplitFile,
    dump_yaml,
    join_front_matter,
    line_of,
    parse_yaml,
    split_front_matter,
)
from benchledger.ledger.paths import RECORD_SUFFIX, kind_of_path, record_path
from benchledger.schema import RECORD_TYPES, Known, Record, RecordBase

LEADING_KEYS = ("id", "kind", "title")
TRAILING_KEYS = ("sources", "status", "history")


def parse_record(text: str, path: Path | str) -> Record:
    """Parse record text; every problem is a ``RecordError`` naming path, line and field."""
    path = Path(path)
    split = split_front_matter(text)
    if isinstance(split, str):
        raise RecordError(path, 1, "", split)
    data, node = _parse_front_matter(split, path)
    kind = data.get("kind")
    expected_kind = kind_of_path(path)
    if kind not in RECORD_TYPES:
        line = _line(split, node, ("kind",))
        raise RecordError(path, line, "kind", f"expected one of {', '.join(RECORD_TYPES)}, got {kind!r}")
    if expected_kind is not None and kind != expected_kind:
        raise RecordError(path, _line(split, node, ("kind",)), "kind",
                          f"a file in {path.parent.name}/ must have kind {expected_kind!r}, got {kind!r}")
    if "body" in data:
        raise RecordError(path, _line(split, node, ("body",)), "body", "the body is the Markdown after the front matter, not a key")
    try:
        record = RECORD_TYPES[kind].model_validate({**data, "body": split.body})
    except ValidationError as exc:
        raise _record_error(exc, path, split, node) from None
    if path.suffix == RECORD_SUFFIX and record.id != path.stem:
        raise RecordError(path, _line(split, node, ("id",)), "id", f"must equal the file name {path.stem!r}, got {record.id!r}")
    return record  # type: ignore[return-value]


def load_record(path: Path | str) -> Record:
    """Read and parse one record file."""
    path = Path(path)
    return load_record_bytes(path, path.read_bytes())


def load_record_bytes(path: Path, data: bytes) -> Record:
    """Parse the bytes of one record file (``path`` names it in errors and fixes its kind folder and id)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(path, None, "", f"not UTF-8 text ({exc.reason})") from None
    return parse_record(text, path)


def dump_record(record: RecordBase) -> str:
    """Canonical text of a record: fixed key order, compact conditions, YAML front matter + body."""
    data = _compact(record.model_dump(mode="python", exclude_defaults=True, exclude={"body"}))
    data["kind"] = getattr(record, "kind")  # noqa: B009 - kind is required but keep it even if defaulted
    ordered: dict[str, Any] = {k: data[k] for k in LEADING_KEYS if k in data}
    ordered.update({k: v for k, v in data.items() if k not in LEADING_KEYS and k not in TRAILING_KEYS})
    ordered.update({k: data[k] for k in TRAILING_KEYS if k in data})
    return join_front_matter(dump_yaml(ordered), record.body)


def write_record(root: Path | str, record: RecordBase) -> Path:
    """Write a record to ``<root>/<kind folder>/<id>.md`` atomically; returns the path."""
    path = record_path(Path(root), getattr(record, "kind"), record.id)  # noqa: B009
    atomic_write_text(path, dump_record(record))
    return path


def atomic_write_text(path: Path, text: str) -> None:
    """Write text via a temporary file in the same folder and ``os.replace``: never half-written."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write bytes atomically (temp file + fsync + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _parse_front_matter(split: SplitFile, path: Path) -> tuple[dict[str, Any], yaml.Node | None]:
    try:
        data, node = parse_yaml(split.yaml_text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + split.yaml_first_line if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise RecordError(path, line, "", f"invalid YAML: {problem}") from None
    if not isinstance(data, dict):
        raise RecordError(path, split.yaml_first_line, "", "front matter must be a YAML mapping of fields")
    return data, node


def _line(split: SplitFile, node: yaml.Node | None, loc: tuple[int | str, ...]) -> int | None:
    line = line_of(node, loc)
    return None if line is None else line + split.yaml_first_line


def _record_error(exc: ValidationError, path: Path, split: SplitFile, node: yaml.Node | None) -> RecordError:
    """The most specific validation error, located in the file."""
    errors = exc.errors(include_url=False)
    best = max(errors, key=lambda e: (len(_field_loc(e["loc"])), e["type"] != "missing"))
    loc = _field_loc(best["loc"])
    field = ".".join(str(p) for p in loc)
    message = best["msg"]
    if best["type"] not in ("missing",) and "input" in best and not isinstance(best["input"], (dict, list)):
        message = f"{message} (got {best['input']!r})"
    if len(errors) > 1:
        message = f"{message} [+{len(errors) - 1} more]"
    return RecordError(path, _line(split, node, loc), field, message)


def _field_loc(loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """Drop pydantic's union-member tags (e.g. 'Known', 'function-after[...]') from an error location."""
    return tuple(p for p in loc if isinstance(p, int) or (p[:1].islower() and "[" not in p and p not in _TAGS))


_TAGS = {"bool", "int", "float", "str", "list", "dict", "none"}


def _compact(value: Any) -> Any:
    """Collapse ``Known`` conditions that carry only a value into the bare scalar; stringify URLs."""
    if isinstance(value, dict):
        if set(value) == {"value"} and isinstance(value["value"], (str, int, float, bool)):
            return value["value"]
        return {k: _compact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_compact(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, BaseModel | Known):
        return _compact(value.model_dump(mode="python", exclude_defaults=True))
    if hasattr(value, "isoformat"):
        return value
    return str(value)


__all__ = [
    "atomic_write_bytes",
    "atomic_write_text",
    "dump_record",
    "load_record",
    "load_record_bytes",
    "parse_record",
    "write_record",
]
