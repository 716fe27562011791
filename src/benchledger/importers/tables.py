"""``ingest-table``: a Markdown table in a source's stored excerpt → a draft benchmark with one arm per row.

Every number taken from a row is ``quoted`` with the row text as the quote (verbatim from the excerpt). Columns
whose header names a known metric (TTFT, TPOT, ITL, E2E latency, throughput, prefill, tok/s per user, memory,
req/s) become results; a concurrency/batch column becomes the arm's workload. Every other cell is listed in the
arm note for the reviewer, and every condition is ``unknown: unchecked`` — a person completes the draft.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from benchledger.errors import BenchledgerError
from benchledger.importers.common import fill_omitted, known, quoted_result, record_id, slugify
from benchledger.importers.context import ImportContext
from benchledger.schema import Arm, Benchmark, Result, Source, Subject, Workload, WorkloadOverride

SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
NUMBER = re.compile(r"^[~≈]?\s*([-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[-+]?\d*\.?\d+)\s*([A-Za-z/%]*)")
# header keyword → (metric, default unit); first match wins, so specific names come first.
HEADER_METRICS: tuple[tuple[str, str, str], ...] = (
    ("ttft", "ttft", "ms"),
    ("tpot", "tpot", "ms"),
    ("itl", "itl", "ms"),
    ("e2e", "e2e_latency", "ms"),
    ("latency", "e2e_latency", "ms"),
    ("prefill", "prefill_throughput", "tok/s"),
    ("per user", "per_stream_throughput", "tok/s"),
    ("per-user", "per_stream_throughput", "tok/s"),
    ("req/s", "request_throughput", "req/s"),
    ("decode", "output_throughput", "tok/s"),
    ("throughput", "output_throughput", "tok/s"),
    ("tok/s", "output_throughput", "tok/s"),
    ("memory", "memory", "GB"),
    ("mem", "memory", "GB"),
)
LOAD_HEADERS = ("concurrency", "conc", "batch", "bs")


@dataclass(frozen=True)
class Table:
    """One Markdown table: header cells and rows (verbatim row text + cells)."""

    header: list[str]
    rows: list[tuple[str, list[str]]]


def _cells(line: str) -> list[str]:
    text = line.strip()
    text = text[1:] if text.startswith("|") else text
    text = text[:-1] if text.endswith("|") else text
    return [c.strip() for c in text.split("|")]


def find_tables(text: str) -> list[Table]:
    """Every pipe table (header line, separator line, rows) in Markdown text, in order."""
    lines = text.splitlines()
    tables: list[Table] = []
    i = 0
    while i + 1 < len(lines):
        if "|" in lines[i] and SEPARATOR.match(lines[i + 1]) and "-" in lines[i + 1]:
            header = _cells(lines[i])
            rows = []
            j = i + 2
            while j < len(lines) and "|" in lines[j] and lines[j].strip():
                rows.append((lines[j].strip(), _cells(lines[j])))
                j += 1
            tables.append(Table(header, rows))
            i = j
        else:
            i += 1
    return tables


def _metric_of(header: str) -> tuple[str, str] | None:
    low = header.lower()
    for key, metric, unit in HEADER_METRICS:
        if key in low:
            return metric, _unit_of(header) or unit
    return None


def _unit_of(header: str) -> str | None:
    match = re.search(r"\(([^)]+)\)", header)
    unit = match.group(1).strip() if match else None
    return unit if unit in ("ms", "s", "tok/s", "req/s", "GB", "GiB") else None


def _number(cell: str) -> float | None:
    match = NUMBER.match(cell.replace("**", "").strip())
    return float(match.group(1).replace(",", "")) if match else None


def ingest_table(source: Source, table_number: int, ctx: ImportContext) -> Benchmark:
    """Build the draft benchmark for table ``table_number`` (1-based) of the source's excerpt."""
    tables = find_tables(source.body)
    if not tables:
        raise BenchledgerError(f"source {source.id}: its stored excerpt holds no Markdown table")
    if not 1 <= table_number <= len(tables):
        raise BenchledgerError(f"source {source.id}: --table {table_number} out of range (1..{len(tables)})")
    table = tables[table_number - 1]
    if not table.rows:
        raise BenchledgerError(f"source {source.id}: table {table_number} has a header but no rows")
    arms: list[Arm] = []
    used: set[str] = set()
    for row_text, cells in table.rows:
        name = _arm_name(cells, used)
        results: list[Result] = []
        workload: WorkloadOverride | None = None
        leftover: list[str] = []
        for header, cell in zip(table.header, cells, strict=False):
            value = _number(cell)
            metric = _metric_of(header)
            if value is not None and metric is not None:
                results.append(quoted_result(metric[0], "value", value, metric[1], row_text, source.id,
                                             f"table-column: {header}"))
            elif value is not None and header.lower().strip() in LOAD_HEADERS and value.is_integer():
                workload = WorkloadOverride(concurrency=known(int(value), row_text, source.id, note=f"column {header}"))
            elif cell:
                leftover.append(f"{header}={cell}")
        arms.append(Arm(name=name, results=results, workload=workload,
                        note="To review: " + "; ".join(leftover) if leftover else "To review."))
    subject = Subject(model=ctx.resolver.resolve("model", None), engine=ctx.resolver.resolve("engine", None),
                      accelerator=ctx.resolver.resolve("accelerator", None))
    workload_all = Workload()
    note = "entered from a source table; a person must complete it from the source"
    fill_omitted(subject, note, reason="unchecked")
    fill_omitted(workload_all, note, reason="unchecked",
                 skip={"concurrency"} if all(a.workload is not None for a in arms) else ())
    header_line = " | ".join(table.header)
    body = (f"Draft entered by `benchledger ingest-table {source.id} --table {table_number}` from the table with "
            f"columns: {header_line}.\n\nEvery number is quoted with its row. Conditions are `unknown: unchecked`; "
            "set the subject, workload, arm names and baselines from the source before review.\n")
    rid = record_id(ctx.options.id_prefix or f"{source.id}-table-{table_number}", source.sha256, str(table_number))
    return Benchmark(kind="benchmark", id=rid, title=f"Table {table_number} of {source.title}",
                     measured_by="third-party", subject=subject, workload=workload_all, arms=arms,
                     sources=[source.id], body=body)


def _arm_name(cells: list[str], used: set[str]) -> str:
    base = slugify(cells[0] if cells else "") or "row"
    name, n = base, 2
    while name in used:
        name, n = f"{base}-{n}", n + 1
    used.add(name)
    return name


__all__ = ["Table", "find_tables", "ingest_table"]
