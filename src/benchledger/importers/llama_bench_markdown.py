"""The Markdown side of ``llama_bench_tables``: tables with the headings above them, and helpers both table
shapes (``llama_bench_tables`` wide llama-bench tables, ``llama_bench_eval`` eval-rate tables) share."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from benchledger.importers.context import ImportContext
from benchledger.importers.references import PLACEHOLDER_IDS
from benchledger.schema import Benchmark, Known
from benchledger.schema.common import RecordKind

FORMAT = "llama-bench-tables"
_TEST = re.compile(r"^(?P<kind>tg|pp)\s*(?P<n>\d+)$", re.IGNORECASE)
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_HEADING = re.compile(r"^(#{1,6})\s+\S")
HARDWARE_COLUMNS = ("gpu", "system", "device", "hardware")


@dataclass
class Table:
    """One Markdown table of a file: the headings in force above it, its header line and its body rows."""

    headings: list[str]
    header: str
    columns: list[str]
    rows: list[tuple[int, str, list[str]]] = field(default_factory=list)
    """(1-based line number, the line verbatim, its cells)."""

    @property
    def tests(self) -> dict[int, tuple[str, int]]:
        """Column index → (``tg``/``pp``, token count) for every llama-bench test column."""
        return {i: (m["kind"].lower(), int(m["n"])) for i, c in enumerate(self.columns) if (m := _TEST.match(c))}

    @property
    def wide(self) -> bool:
        return (len(self.columns) > 2 and self.columns[0].lower() in HARDWARE_COLUMNS
                and self.columns[1].lower() == "model" and bool(self.tests))


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") else inner
    return [c.strip() for c in inner.split("|")]


def tables(text: str) -> list[Table]:
    """Every Markdown table of ``text`` outside code fences, with the headings in force above it."""
    lines, out, fenced, i = text.split("\n"), [], False, 0
    headings: dict[int, str] = {}
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and (m := _HEADING.match(line)):
            level = len(m[1])
            headings = {k: v for k, v in headings.items() if k < level} | {level: line}
        elif not fenced and line.lstrip().startswith("|") and i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1]):
            table = Table([headings[k] for k in sorted(headings)], line, _cells(line))
            i += 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                table.rows.append((i + 1, lines[i], _cells(lines[i])))
                i += 1
            out.append(table)
            continue
        i += 1
    return out


def stated(condition: object) -> object:
    """What a condition states (a bare scalar or a ``Known``'s value); None when it is unknown or absent."""
    if isinstance(condition, Known):
        return condition.value
    return condition if isinstance(condition, str | int | float | bool) else None


def existing_numbers(ctx: ImportContext, source_id: str) -> dict[tuple[object, ...], str]:
    """(model, accelerator, count, metric, value) → id of a ledger record (not from this source) holding it."""
    out: dict[tuple[object, ...], str] = {}
    for rid, record in ctx.resolver.records.items():
        if not isinstance(record, Benchmark) or source_id in record.sources:
            continue
        count = stated(record.subject.accelerator_count)
        for arm in record.arms:
            for r in arm.results:
                out.setdefault((record.subject.model, record.subject.accelerator, count, r.metric, float(r.value)),
                               rid)
    return out


def ref(ctx: ImportContext, kind: RecordKind, rid: str | None, stated: str) -> str:
    if rid is not None and rid in ctx.resolver.records:
        return rid
    ctx.resolver.unmatched.append((kind, stated))
    ctx.resolver.placeholders.add(kind)
    return PLACEHOLDER_IDS[kind]


__all__ = ["FORMAT", "Table", "existing_numbers", "ref", "stated", "tables"]
