"""Record files ↔ schema objects: strict parsing with ``path:line: field: expected`` errors, canonical dumping,
atomic writes (``atomic.py``). Loading then dumping a canonical file gives identical bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from benchledger.errors import RecordError
from benchledger.ledger.atomic import atomic_write_bytes, atomic_write_text, current_umask
from benchledger.ledger.blockyaml import load_block_yaml
from benchledger.ledger.frontmatter import (
    SplitFile,
    dump_yaml,
    join_front_matter,
    line_of,
    parse_yaml,
    split_front_matter,
)
from benchledger.ledger.paths import kind_of_path, record_path
from benchledger.schema import KIND_FOLDERS, RECORD_TYPES, Known, Record, RecordBase

LEADING_KEYS = ("id", "kind", "title")
TRAILING_KEYS = ("sources", "status", "history")


MAX_RECORD_BYTES = 64 * 1024 * 1024
"""A record file larger than this is refused unread (the biggest bundled record is under 1 MB; the index takes
records of tens of MB, tests/integration/test_index.py)."""


def parse_record(text: str, path: Path | str) -> Record:
    """Parse record text; every problem is a ``RecordError`` naming path, line and field.

    Only the content is checked here; whether the id is the file name and the folder the kind's folder is
    ``identity_problems`` (the audit reports those as ``identity.*``).
    """
    path = Path(path)
    if "\r" in text:
        raise RecordError(path, text[: text.index("\r")].count("\n") + 1, "",
                          "CRLF (or CR) line endings: record files use LF only (convert the file, e.g. dos2unix)",
                          code="files.encoding")
    split = split_front_matter(text)
    if isinstance(split, str):
        raise RecordError(path, 1, "", split)
    data = _parse_front_matter(split, path)
    kind = data.get("kind")
    if kind not in RECORD_TYPES:
        line = _line(split, ("kind",))
        raise RecordError(path, line, "kind", f"expected one of {', '.join(RECORD_TYPES)}, got {kind!r}")
    if "body" in data:
        raise RecordError(path, _line(split, ("body",)), "body", "the body is the Markdown after the front matter, not a key")
    try:
        record = RECORD_TYPES[kind].model_validate({**data, "body": split.body})
    except ValidationError as exc:
        raise _record_error(exc, path, split) from None
    return record  # type: ignore[return-value]


def identity_problems(path: Path, record: RecordBase) -> list[RecordError]:
    """Each way the file's place disagrees with the record, as a located error whose ``code`` says which: the id
    must be the file name (``identity.id-not-filename``), the folder the kind's folder (``identity.wrong-folder``)."""
    problems: list[RecordError] = []
    if path.stem != record.id:
        problems.append(RecordError(path, _key_line(path, "id"), "id",
                                    f"id {record.id!r} differs from the file name {path.name!r}",
                                    code="identity.id-not-filename"))
    kind = getattr(record, "kind")  # noqa: B009 - every record kind has one
    expected = kind_of_path(path)
    if expected is not None and expected != kind:
        problems.append(RecordError(path, _key_line(path, "kind"), "kind",
                                    f"a {kind} record belongs in {KIND_FOLDERS[kind]}/, found in {path.parent.name}/",
                                    code="identity.wrong-folder"))
    return problems


def _key_line(path: Path, key: str) -> int | None:
    """1-based line of a top-level ``key:`` in a record file (None when it cannot be found)."""
    try:
        lines = read_record_text(path).split("\n")
    except RecordError:
        return None
    return next((i + 1 for i, line in enumerate(lines) if line.startswith(f"{key}:")), None)


def read_record_text(path: Path | str) -> str:
    """A record file's text, refused with a ``RecordError`` when it is too large, not UTF-8 or starts with a BOM."""
    path = Path(path)
    return record_text(path, read_record_bytes(path))


def read_record_bytes(path: Path) -> bytes:
    """A record file's bytes; too large (checked before reading) or unreadable is a ``RecordError``."""
    try:
        size = path.stat().st_size
        if size > MAX_RECORD_BYTES:
            raise _too_large(path, size)
        return path.read_bytes()
    except OSError as exc:
        raise unreadable(path, exc) from None


def unreadable(path: Path, exc: OSError) -> RecordError:
    """The error of a record file that cannot be read (gone, a folder, no permission)."""
    return RecordError(path, None, "", f"cannot read the file ({exc.strerror or exc})", code="files.encoding")


def record_text(path: Path, data: bytes) -> str:
    """The text of a record file's bytes (``RecordError`` when too large, with a BOM, or not UTF-8)."""
    if len(data) > MAX_RECORD_BYTES:
        raise _too_large(path, len(data))
    if data.startswith(b"\xef\xbb\xbf"):
        raise RecordError(path, 1, "", "the file starts with a UTF-8 byte-order mark (BOM): save it as UTF-8 "
                          "without BOM", code="files.encoding")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(path, data[: exc.start].count(b"\n") + 1, "",
                          f"not UTF-8 text ({exc.reason} at byte {exc.start})", code="files.encoding") from None


def _too_large(path: Path, size: int) -> RecordError:
    return RecordError(path, None, "", f"{size:,} bytes: over the {MAX_RECORD_BYTES:,}-byte limit of a record "
                       "file (ledger/io.py MAX_RECORD_BYTES); split it", code="files.too-large")


def load_record(path: Path | str) -> Record:
    """Read and parse one record file; its id must be its file name and its folder its kind's folder."""
    path = Path(path)
    record = load_record_bytes(path, read_record_bytes(path))
    for problem in identity_problems(path, record):
        raise problem
    return record


def load_record_bytes(path: Path, data: bytes) -> Record:
    """Parse the bytes of one record file. Every failure is a ``RecordError`` naming the file (and line where
    it has one): one bad file never crashes a command. Identity (id = file name, kind = folder) is not checked
    here but by ``identity_problems``, so the audit can report it as ``identity.*``."""
    try:
        return parse_record(record_text(path, data), path)
    except RecordError:
        raise
    except Exception as exc:  # anything else (e.g. nesting too deep to convert): still one file's error
        raise RecordError(path, None, "", f"cannot be loaded: {type(exc).__name__}: {exc}") from None


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


def _parse_front_matter(split: SplitFile, path: Path) -> dict[str, Any]:
    """The front matter's data: read directly when it is in canonical form (``blockyaml.py``, several times
    faster), else by PyYAML, whose errors name the line."""
    data: Any = load_block_yaml(split.yaml_text)
    if data is not None:
        return data  # type: ignore[no-any-return]
    try:
        data = parse_yaml(split.yaml_text)[0]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + split.yaml_first_line if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise RecordError(path, line, "", f"invalid YAML: {problem}") from None
    if not isinstance(data, dict):
        raise RecordError(path, split.yaml_first_line, "", "front matter must be a YAML mapping of fields")
    return data


def _line(split: SplitFile, loc: tuple[int | str, ...]) -> int | None:
    """The file line of ``loc`` (the node tree that knows lines is built here, for an error only)."""
    try:
        node = parse_yaml(split.yaml_text)[1]
    except yaml.YAMLError:
        return None
    line = line_of(node, loc)
    return None if line is None else line + split.yaml_first_line


def _record_error(exc: ValidationError, path: Path, split: SplitFile) -> RecordError:
    """The most specific validation error, located in the file."""
    errors = exc.errors(include_url=False)
    best = max(errors, key=lambda e: (len(_field_loc(e["loc"])), e["type"] == "value_error", e["type"] != "missing"))
    loc = _field_loc(best["loc"])
    field = ".".join(str(p) for p in loc)
    message = best["msg"]
    if best["type"] not in ("missing",) and "input" in best and not isinstance(best["input"], (dict, list)):
        message = f"{message} (got {best['input']!r})"
    if len(errors) > 1:
        message = f"{message} [+{len(errors) - 1} more]"
    return RecordError(path, _line(split, loc), field, message)


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
    "MAX_RECORD_BYTES",
    "atomic_write_bytes",
    "atomic_write_text",
    "current_umask",
    "dump_record",
    "identity_problems",
    "load_record",
    "load_record_bytes",
    "parse_record",
    "read_record_bytes",
    "read_record_text",
    "record_text",
    "unreadable",
    "write_record",
]
