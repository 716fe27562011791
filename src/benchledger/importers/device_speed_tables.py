"""``device-speed-tables``: Markdown tables of one row per model file × device with a tokens/sec column.

The shape (e.g. liltom-eth/llama2-webui ``docs/performance.md``): ``| Model | Precision | Device | GPU VRAM |
Speed (tokens/sec) | load time (s) |``. Read from a stored git snapshot at one pinned commit (``git_snapshot``);
each Markdown file holding such a table becomes one source storing it whole, byte for byte (``stored_files``);
each device × model of a table becomes one experiment, each row one arm whose numbers are quoted with the row.
A row without a device or a speed measured nothing: it is named in the source's "Not imported" list.
The names the tables print are mapped in ``device_speed_catalog``.

Mapping (foreign field → ledger field, or why not):

| table | ledger |
|---|---|
| ``Device`` (``Apple M2 Metal``) | ``subject.accelerator`` (catalog) and the backend it names (CPU / Metal) in the arm name and note; ``accelerator_count`` 1 (the row names one device) |
| ``Model`` (``llama-2-7b-chat.ggmlv3.q4_0``) | ``subject.model`` (catalog); a GGML file name → engine ``llama-cpp``, other rows → placeholder engine (the file names none) |
| ``Precision`` with the model file's quantisation tag | ``subject.weights`` (catalog; no format record → ``unknown: source_omits``) |
| ``Speed (tokens/sec)`` | ``per_stream_throughput`` tok/s (one chat session's generation speed) |
| ``GPU VRAM`` / ``RAM / GPU VRAM`` | ``memory`` GB (the memory the row states in use) |
| ``load time (s)`` | not imported: no ledger metric for model load time |
| prompt and output length, concurrency, engine build, warmup | ``unknown: source_omits`` |
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from benchledger.importers import device_speed_catalog as catalog
from benchledger.importers.common import (
    fill_omitted,
    hoist_shared,
    known,
    omitted,
    quoted_result,
    record_id,
    slugify,
)
from benchledger.importers.context import ImportContext
from benchledger.importers.git_snapshot import Snapshot, StoredFile
from benchledger.importers.snapshot_source import (
    created,
    markdown_tables,
    owner_repo,
    snapshot_file_source,
    snapshot_source_id,
)
from benchledger.importers.tables import find_tables
from benchledger.schema import (
    Arm,
    Benchmark,
    Result,
    Subject,
    SubjectOverride,
    Workload,
)
from benchledger.schema.common import RecordKind

FORMAT = "device-speed-tables"
_SPEED = re.compile(r"tokens?\s*/\s*s(ec)?\b|tok/s", re.IGNORECASE)
_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(GB)?\b", re.IGNORECASE)
_HEADING = re.compile(r"^#{1,6}\s+(?P<text>\S.*)$")


@dataclass
class DeviceTable:
    """One table of the shape: the heading above it, its header line, column indexes and body rows."""

    heading: str
    header_line: str
    columns: list[str]
    rows: list[tuple[str, list[str]]]
    device: int
    speed: int
    model: int | None
    precision: int | None
    memory: int | None

    @classmethod
    def of(cls, heading: str, header_line: str, columns: list[str], rows: list[tuple[str, list[str]]]
           ) -> DeviceTable | None:
        low = [c.lower() for c in columns]
        device = next((i for i, c in enumerate(low) if c == "device"), None)
        speed = next((i for i, c in enumerate(columns) if _SPEED.search(c)), None)
        if device is None or speed is None:
            return None
        return cls(heading, header_line, columns, rows, device, speed,
                   next((i for i, c in enumerate(low) if c == "model"), None),
                   next((i for i, c in enumerate(low) if c == "precision"), None),
                   next((i for i, c in enumerate(low) if "vram" in c or c.endswith("ram")), None))


def device_tables(text: str) -> list[DeviceTable]:
    """Every table of ``text`` with a ``Device`` column and a tokens/sec column, with the heading above it."""
    lines = text.split("\n")
    out = []
    for table in find_tables(text):
        header_line = next(line for line in lines if line.strip() and _cells(line) == table.header)
        above = lines[:lines.index(header_line)]
        heading = next((m["text"].strip() for line in reversed(above) if (m := _HEADING.match(line))), "")
        found = DeviceTable.of(heading, header_line.strip(), table.header, table.rows)
        if found is not None:
            out.append(found)
    return out


def _cells(line: str) -> list[str]:
    text = line.strip().removeprefix("|").removesuffix("|")
    return [c.strip() for c in text.split("|")]


def build_snapshots(paths: list[Path], ctx: ImportContext) -> None:
    """Add one source per Markdown file with device-speed tables and its experiments (see the module docstring)."""
    for path in paths:
        snap, files, found = markdown_tables(path, device_tables, "table with a Device column and a tokens/sec column")
        seen: dict[tuple[str, ...], str] = {}
        for name in sorted(found, key=lambda p: (-sum(len(t.rows) for t in found[p]), p)):
            _import_file(snap, files[name], found[name], seen, ctx)


def _import_file(snap: Snapshot, file: StoredFile, file_tables: list[DeviceTable], seen: dict[tuple[str, ...], str],
                 ctx: ImportContext) -> None:
    source_id = snapshot_source_id(snap, file)
    skipped: list[str] = []
    records = [r for number, table in enumerate(file_tables, start=1)
               for r in _table_records(snap, file, table, number, source_id, seen, skipped, ctx)]
    if not records:  # every row restates one imported from another file of the snapshot (or measured nothing)
        return
    ctx.plan.add(*records)
    ctx.plan.add(snapshot_file_source(
        snap, file, ctx, source_id=source_id, format_name=FORMAT, label="device speed tables",
        imported="Its tables with a Device column and a tokens/sec column are imported, one arm per row.",
        skipped=skipped, why="stores the file the imported device-speed records quote"))


@dataclass
class _Group:
    device: str
    """The device's catalog name (a cell naming its backend too, e.g. ``Apple M2 Metal``, groups under ``apple-m2``)."""
    model: str
    """The model id when the catalog has it, else the model cell."""
    rows: list[tuple[str, list[str]]] = field(default_factory=list)


def _row_key(table: DeviceTable, cells: list[str]) -> tuple[str, ...]:
    """What makes two rows the same measurement: model, precision, device and speed as written."""
    picked = [cells[i] if i is not None else "" for i in (table.model, table.precision, table.device, table.speed)]
    return tuple(slugify(c).replace("-", "") for c in picked)


def _groups(table: DeviceTable, where: str, seen: dict[tuple[str, ...], str], skipped: list[str]) -> list[_Group]:
    groups: dict[tuple[str, str, str], _Group] = {}
    for line, cells in table.rows:
        if not any(cells):
            continue
        if len(cells) != len(table.columns):
            skipped.append(f"{where}: row {line!r}: {len(cells)} cells, the header has {len(table.columns)}")
            continue
        model = cells[table.model] if table.model is not None else ""
        if not cells[table.device] or _NUMBER.match(cells[table.speed]) is None:
            skipped.append(f"{where}: row {line!r}: no device or no speed stated (nothing measured)")
            continue
        twin = seen.setdefault(_row_key(table, cells), where)
        if twin != where:
            skipped.append(f"{where}: row {line!r}: the same row as in {twin} (imported from there)")
            continue
        device = catalog.device(cells[table.device])
        key = (device.name, catalog.model(model) or model, "ggml" if catalog.is_ggml(model) else "")
        groups.setdefault(key, _Group(device.name, key[1])).rows.append((line, cells))
    return list(groups.values())


def _ref(ctx: ImportContext, kind: RecordKind, rid: str | None, stated: str) -> str:
    """``rid`` when this ledger has it, else the resolver's match for the stated name (or its placeholder)."""
    if rid is not None and rid in ctx.resolver.records:
        return rid
    return ctx.resolver.resolve(kind, stated or None)


def _table_records(snap: Snapshot, file: StoredFile, table: DeviceTable, number: int, source_id: str,
                   seen: dict[tuple[str, ...], str], skipped: list[str], ctx: ImportContext) -> list[Benchmark]:
    where = f"`{file.path}` table {number}"
    formats = {rid for rid, r in ctx.resolver.records.items() if getattr(r, "kind", None) == "format"}
    out = []
    for group in _groups(table, where, seen, skipped):
        first = group.rows[0][1]
        device_cell = first[table.device]
        model_cell = first[table.model] if table.model is not None else ""
        device = catalog.device(device_cell)
        ggml = catalog.is_ggml(model_cell)
        subject = Subject(
            model=_ref(ctx, "model", catalog.model(model_cell), model_cell),
            engine=_ref(ctx, "engine", "llama-cpp" if ggml else None,
                        "" if ggml else f"the backend of {model_cell} (the file names no engine)"),
            accelerator=_ref(ctx, "accelerator", device.accelerator, device_cell),
            accelerator_count=known(1, note="the row names one device"),
            engine_version=omitted("no engine build or version stated with the table"))
        arms = [_arm(table, line, cells, source_id, formats) for line, cells in group.rows]
        names = [a.name for a in arms]
        arms = [a for i, a in enumerate(arms) if a.name not in names[:i]]
        workload = Workload(scenario="unknown")
        per_w = hoist_shared(arms, workload, "workload")
        per_s = hoist_shared(arms, subject, "subject")
        fill_omitted(workload, "not stated with the table", skip=per_w)
        fill_omitted(subject, "not stated with the table", skip=per_s)
        lines = ctx.resolver.take_unmatched_lines()
        engine_note = ("GGML model files (`ggmlv3`) are llama.cpp's format, so the engine is llama.cpp; the binding "
                       "and its build are not stated." if ggml else
                       "The file names no engine for these rows (a Hugging Face or GPTQ checkpoint).")
        body = (f"Imported by `benchledger import {FORMAT}` from {snap.repo_url} at commit {snap.commit}: {where} "
                f"({table.header_line}, under the heading '{table.heading}'), the rows of {group.device} × {group.model}; every number is quoted with "
                f"its row from the file stored whole in source `{source_id}`. "
                + " ".join(n for n in (engine_note, device.note) if n)
                + " The table's load time column is not imported (no ledger metric for model load time).\n"
                + ("\n## Stated by the input, not yet matched to ledger records\n\n" + "\n".join(lines) + "\n"
                   if lines else ""))
        out.append(Benchmark(
            kind="benchmark", id=record_id(slugify(f"{owner_repo(snap).split('/')[0]}-{group.model}-"
                                                   f"{group.device}")[:64].strip("-"), snap.repo_url, file.path,
                                           table.header_line, group.device, group.model),
            title=f"{group.model} on {group.device} ({owner_repo(snap)} {file.path}, {snap.committed.isoformat()})",
            measured_by="third-party", subject=subject, workload=workload, arms=arms, sources=[source_id],
            history=[created(ctx, FORMAT, "bulk import of a public device speed table")], body=body))
    return out


def _arm(table: DeviceTable, line: str, cells: list[str], source_id: str, formats: set[str]) -> Arm:
    model = cells[table.model] if table.model is not None else ""
    precision = cells[table.precision] if table.precision is not None else ""
    fmt = catalog.weight_format(model, precision)
    weights = (known(fmt.id, line, source_id, fmt.note) if fmt.id in formats
               else omitted(f"weight format {fmt.stated!r} has no format record"))
    speed_col = table.columns[table.speed]
    speed = _NUMBER.match(cells[table.speed])
    assert speed is not None  # _groups keeps only rows with a speed
    results: list[Result] = [quoted_result("per_stream_throughput", "value", float(speed[1]), "tok/s", line,
                                           source_id, "table-speed",
                                           f"column {speed_col!r}; how it was timed is not stated with the table")]
    if table.memory is not None and (mem := _NUMBER.match(cells[table.memory])) and mem[2]:
        results.append(quoted_result("memory", "value", float(mem[1]), "GB", line, source_id, "table-memory",
                                     f"column {table.columns[table.memory]!r}: memory in use"))
    backend = catalog.device(cells[table.device]).backend
    return Arm(name=slugify(f"{fmt.stated}-{backend}" if backend else fmt.stated),
               subject=SubjectOverride(weights=weights), results=results)


__all__ = ["FORMAT", "DeviceTable", "build_snapshots", "device_tables"]
