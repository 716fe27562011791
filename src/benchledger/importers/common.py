"""Shared building blocks of every importer: input files with their sha256, idempotent ids, provenance helpers.

Two kinds of provenance come out of an import:

- ``measured`` — the imported file is a tool's own output (vLLM ``bench serve``, AIPerf, GuideLLM). It is stored
  byte for byte as a run artifact under ``<ledger>/runs/imports/<sha256[:12]>/<filename>``; every number points
  at that file (``run``, relative to the ledger root) and carries its sha256.
- ``quoted`` — the imported file is a public record (autobench page, inference-research JSON, MLPerf summary).
  Its text becomes a source record's stored excerpt and every number carries a verbatim quote from it.

Every condition an input does not state is ``Unknown(unknown="source_omits")`` — never a default.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from benchledger.errors import ImportFormatError
from benchledger.schema import Arm, Known, Parallelism, Quantity, Result, Unknown
from benchledger.schema.provenance import Condition, UnknownReason

RUNS_IMPORT_DIR = "runs/imports"
"""Run artifacts of measured imports live in ``<ledger>/runs/imports/<sha prefix>/``."""
SHA_PREFIX = 12
NOT_DEFAULTED = frozenset({"ttft_limit_ns", "tpot_limit_ns"})
"""Condition fields that are absent when nothing imposes them (a latency limit), never filled as unknown."""
ID_HASH_LEN = 8


@dataclass(frozen=True)
class InputFile:
    """One file given to an importer: its bytes, decoded text and sha256."""

    path: Path
    data: bytes
    sha256: str
    run_folder: str | None = None

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")

    @property
    def run_dir(self) -> str:
        """Run folder (relative to the ledger root) holding this file as a measured artifact: by default
        ``runs/imports/<own sha256[:12]>``; a companion file (e.g. AIPerf's server metrics) shares its main file's."""
        return self.run_folder or f"{RUNS_IMPORT_DIR}/{self.sha256[:SHA_PREFIX]}"

    @property
    def artifact_path(self) -> str:
        return f"{self.run_dir}/{self.path.name}"

    def stored_with(self, main: InputFile) -> InputFile:
        """This file as a companion stored in ``main``'s run folder."""
        return replace(self, run_folder=main.run_dir)


def read_input(path: Path | str) -> InputFile:
    """Read a file to import; an unreadable or non-UTF-8 file is an ``ImportFormatError``."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImportFormatError(path, "", f"cannot read the file ({exc.strerror or exc})") from None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ImportFormatError(path, "", f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return InputFile(path=path, data=data, sha256=hashlib.sha256(data).hexdigest())


def slugify(text: str) -> str:
    """Lower-case kebab slug matching the ledger id pattern (``[a-z0-9]`` runs joined by ``-``)."""
    return "-".join(re.findall(r"[a-z0-9]+", text.lower()))


def record_id(prefix: str, *hash_parts: str) -> str:
    """An idempotent id: ``<slug(prefix)>-<first 8 hex of sha256(parts)>``; same input → same id."""
    digest = hashlib.sha256("\x1f".join(hash_parts).encode()).hexdigest()[:ID_HASH_LEN]
    slug = slugify(prefix)
    return f"{slug}-{digest}" if slug else digest


def omitted(note: str = "") -> Unknown:
    """A condition the input does not state."""
    return Unknown(unknown="source_omits", note=note)


def measured(value: float, unit: str, src: InputFile, note: str = "") -> Quantity:
    """A number taken from a tool's output file stored as a run artifact."""
    return Quantity(value=value, unit=unit, provenance="measured", run=src.artifact_path, sha256=src.sha256,
                    basis="measured", note=note)


def measured_result(metric: str, stat: str, value: float, unit: str, src: InputFile, definition: str,
                    note: str = "") -> Result:
    """A measured ``Result`` with the tool's metric definition named; a value the metric cannot have (a negative
    throughput, a NaN) is an ``ImportFormatError`` naming the file and metric."""
    return _result(src.path, {
        "metric": metric, "stat": stat, "value": value, "unit": unit, "provenance": "measured",
        "run": src.artifact_path, "sha256": src.sha256, "basis": "measured", "definition": definition, "note": note,
    })


def _result(where: Path | str, data: dict[str, Any]) -> Result:
    try:
        return Result.model_validate(data)
    except ValidationError as exc:
        problem = exc.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
        raise ImportFormatError(where, f"{data['metric']} ({data['stat']})",
                                f"{data['value']} {data['unit']}: {problem}") from None


def quoted(value: float, unit: str, quote: str, source: str, note: str = "") -> Quantity:
    """A number with the verbatim text that states it."""
    return Quantity(value=value, unit=unit, provenance="quoted", quote=quote, source=source,
                    basis="source-text", note=note)


def quoted_result(metric: str, stat: str, value: float, unit: str, quote: str, source: str, definition: str,
                  note: str = "") -> Result:
    """A quoted ``Result`` with the source's metric definition named (a value the metric cannot have is an
    ``ImportFormatError`` naming the source and metric)."""
    return _result(source, {
        "metric": metric, "stat": stat, "value": value, "unit": unit, "provenance": "quoted", "quote": quote,
        "source": source, "basis": "source-text", "definition": definition, "note": note,
    })


def known(value: str | int | float | bool, quote: str | None = None, source: str | None = None,
          note: str = "") -> Condition:
    """A stated condition; a bare scalar when there is nothing to attach."""
    if quote is None and not note:
        return value
    return Known(value=value, quote=quote, source=source, note=note)


def fill_omitted(model: BaseModel, note: str = "", *, skip: Collection[str] = (),
                 reason: UnknownReason = "source_omits") -> None:
    """Set every condition field still ``None`` on a Subject/Workload to ``Unknown`` (in place).

    ``skip`` names fields every arm states (they stay absent at the record level)."""
    for name, info in type(model).model_fields.items():
        if getattr(model, name) is not None or name in skip or name in NOT_DEFAULTED:
            continue
        if name == "parallelism":
            setattr(model, name, Parallelism(tp=Unknown(unknown=reason, note=note)))
        elif _is_condition(info.annotation):
            setattr(model, name, Unknown(unknown=reason, note=note))


def _stated(dumped: Any) -> Any:
    """What a dumped condition states (its value, ignoring which page's quote says so)."""
    if isinstance(dumped, dict) and "value" in dumped:
        return dumped["value"]
    return dumped


def hoist_shared(arms: list[Arm], record_level: BaseModel, attr: str) -> set[str]:
    """Move override fields (``attr`` = 'workload' or 'subject') stating the same value in every arm to the record
    level (keeping the first arm's quote). Arms keep only what differs; returns the fields every arm still states."""
    per_arm = [{k: _stated(v) for k, v in getattr(a, attr).model_dump(exclude_none=True).items()}
               if getattr(a, attr) else {} for a in arms]
    fields = type(getattr(arms[0], attr) or record_level).model_fields if arms else {}
    per_arm_fields: set[str] = set()
    for name in fields:
        values = [d.get(name) for d in per_arm]
        if values[0] is not None and all(v == values[0] for v in values):
            setattr(record_level, name, getattr(getattr(arms[0], attr), name))
            for arm in arms:
                setattr(getattr(arm, attr), name, None)
        elif all(v is not None for v in values):
            per_arm_fields.add(name)
    for arm in arms:
        override = getattr(arm, attr)
        if override is not None and not override.model_dump(exclude_none=True):
            setattr(arm, attr, None)
    return per_arm_fields


def _is_condition(annotation: Any) -> bool:
    text = str(annotation)
    return "Known" in text and "Unknown" in text


def distribution(values: list[float]) -> int | float | str | None:
    """A token-length condition from per-request values: the value when all equal, else mean and range."""
    if not values:
        return None
    low, high = min(values), max(values)
    if low == high:
        return int(low) if float(low).is_integer() else low
    mean = sum(values) / len(values)
    return f"mean {mean:.6g} (min {low:g}, max {high:g}, n={len(values)})"


def percentile(values: list[float], q: float) -> float:
    """numpy-style (linear interpolation) percentile ``q`` in 0..100 of non-empty ``values``."""
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def number(data: Mapping[str, Any], key: str, src: Path, where: str = "") -> float:
    """A required numeric field; anything else is an ``ImportFormatError`` naming the key."""
    if key not in data:
        raise ImportFormatError(src, f"{where}{key}", "missing (required key)")
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ImportFormatError(src, f"{where}{key}", f"expected a number, got {value!r}")
    return float(value)


def optional_number(data: Mapping[str, Any], key: str, src: Path, where: str = "") -> float | None:
    """A numeric field that may be absent, null or non-finite (NaN: not computed); another type is an error."""
    if data.get(key) is None:
        return None
    value = number(data, key, src, where)
    return value if math.isfinite(value) else None


def sub(data: Any, key: str) -> dict[str, Any]:
    """``data[key]`` when both are JSON objects, else an empty dict (for optional nested fields)."""
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def items(data: Any, key: str) -> list[Any]:
    """``data[key]`` when it is a list, else an empty list (for optional nested fields)."""
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, list) else []


def mapping(value: Any, key: str, src: Path) -> dict[str, Any]:
    """A JSON object field, or an ``ImportFormatError``."""
    if not isinstance(value, dict):
        raise ImportFormatError(src, key, f"expected an object, got {type(value).__name__}")
    return value


@dataclass
class ImportOptions:
    """What the user asked for on the command line."""

    source: str | None = None
    id_prefix: str | None = None
    model: str | None = None
    engine: str | None = None
    accelerator: str | None = None
    retrieved: dt.date = field(default_factory=dt.date.today)


__all__ = [
    "ID_HASH_LEN",
    "RUNS_IMPORT_DIR",
    "ImportOptions",
    "InputFile",
    "distribution",
    "fill_omitted",
    "hoist_shared",
    "items",
    "known",
    "mapping",
    "measured",
    "measured_result",
    "number",
    "omitted",
    "optional_number",
    "percentile",
    "quoted",
    "quoted_result",
    "read_input",
    "record_id",
    "slugify",
    "sub",
]
