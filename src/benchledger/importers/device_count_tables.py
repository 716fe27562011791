"""``device-count-tables``: Markdown tables of one row per model and one column per cluster size.

The shape (b4rtaz/distributed-llama ``README.md``, "Average Token Generation Time"): ``| Model | 1 x RasPi 5 8 GB |
2 x RasPi 5 8 GB | … |``, each cell ``**441.09 ms**, 2.26 t/s<br><sub><sup>I: …, T: …</sup></sub>``, under a bold
device line and a ``Weights = Q40, Buffer = Q80, nSamples = 16, …, tested on 0.3.1 version`` conditions line.
Read from a stored git snapshot at one pinned commit (``git_snapshot``, ``DIR@COMMIT``); each Markdown file holding
such a table becomes one source storing it whole, byte for byte (``stored_files``); each table × model row becomes
one experiment, each cell one arm (cluster size N) whose numbers are quoted with the row.

Mapping (foreign field → ledger field, or why not):

| table | ledger |
|---|---|
| column ``N x <device>`` (``VM``: the conditions line's ``VMs = …``) | ``subject.accelerator`` (``device_count_catalog``), ``accelerator_count`` N and ``parallelism.tp`` N (the README states tensor parallelism over Ethernet) |
| row ``Model`` (``Llama 2 13B``) | ``subject.model`` (catalog) |
| ``**441.09 ms**`` | ``tpot`` mean ms (the average time per generated token, its samples per the conditions line) |
| ``2.26 t/s`` | ``per_stream_throughput`` mean tok/s |
| ``I: … ms, T: … ms`` (root node's inference and network transfer time) | not imported: no ledger metric for a part of one token's time |
| ``Not enough RAM`` | no arm (nothing measured); named in the record body |
| ``Weights = Q40`` | ``subject.weights`` via ``device_count_catalog.WEIGHTS`` (``dllama-q40``), quoted with the conditions line; a value with no format record: ``unknown`` with the text |
| ``tested on 0.3.1 version`` | ``subject.engine_version`` |
| ``Buffer``, ``nSamples``, switch | named in the record body (no ledger field) |
| prompt and output length, concurrency, warmup, threads | ``unknown: source_omits`` |
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from benchledger.importers import device_count_catalog as catalog
from benchledger.importers.common import fill_omitted, hoist_shared, known, quoted_result, record_id, slugify
from benchledger.importers.context import ImportContext
from benchledger.importers.git_snapshot import Snapshot, StoredFile
from benchledger.importers.snapshot_source import (
    created,
    markdown_tables,
    owner_repo,
    snapshot_file_source,
    snapshot_source_id,
)
from benchledger.schema import (
    Arm,
    Benchmark,
    Condition,
    Parallelism,
    Result,
    Subject,
    SubjectOverride,
    Unknown,
    Workload,
)
from benchledger.schema.common import RecordKind

FORMAT = "device-count-tables"
_COLUMN = re.compile(r"^(?P<n>\d+)\s*x\s+(?P<device>\S.*)$")
_MS = re.compile(r"\*\*(?P<ms>\d+(?:\.\d+)?)\s*ms\*\*(?:\s*🔥)?(?:,\s*(?P<tps>\d+(?:\.\d+)?)\s*t/s)?")
_CONDITIONS = re.compile(r"^<sub><sup>(?P<text>.*=.*)</sup></sub>\s*$")
_BOLD = re.compile(r"^\*\*(?P<text>[^*]+)\*\*\s*$")
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_VERSION = re.compile(r"tested on (?P<v>\d+(?:\.\d+)+) version")


@dataclass
class CountTable:
    """One table: the bold device line and conditions line above it, its header and body rows."""

    title: str
    conditions_line: str
    header: str
    columns: list[str]
    rows: list[tuple[str, list[str]]]

    @property
    def conditions(self) -> dict[str, str]:
        """``key = value`` pairs of the conditions line (a Markdown link keeps its text)."""
        text = _CONDITIONS.match(self.conditions_line)
        pairs = [p.split("=", 1) for p in text["text"].split(",")] if text else []
        return {k.strip(): re.sub(r"\[([^]]+)\]\([^)]*\)", r"\1", v).strip() for k, v in (p for p in pairs if len(p) == 2)}

    @property
    def counts(self) -> dict[int, tuple[int, str]]:
        """Column index → (device count, device name) for every ``N x <device>`` column."""
        return {i: (int(m["n"]), m["device"].strip()) for i, c in enumerate(self.columns) if (m := _COLUMN.match(c))}


def _cells(line: str) -> list[str]:
    text = line.strip().removeprefix("|").removesuffix("|")
    return [c.strip() for c in text.split("|")]


def count_tables(text: str) -> list[CountTable]:
    """Every table of ``text`` whose first column is ``Model`` and whose other columns are ``N x <device>``."""
    lines, out, fenced, title, conditions = text.split("\n"), [], False, "", ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and (bold := _BOLD.match(line.strip())):
            title, conditions = bold["text"].strip(), ""
        elif not fenced and _CONDITIONS.match(line.strip()):
            conditions = line.strip()
        elif not fenced and line.lstrip().startswith("|") and i + 1 < len(lines) and _SEPARATOR.match(lines[i + 1]):
            table = CountTable(title, conditions, line.strip(), _cells(line), [])
            i += 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                table.rows.append((lines[i].strip(), _cells(lines[i])))
                i += 1
            if table.columns[0].lower() == "model" and len(table.counts) == len(table.columns) - 1:
                out.append(table)
            continue
        i += 1
    return out


def build_snapshots(paths: list[Path], ctx: ImportContext) -> None:
    """Add one source per Markdown file with device-count tables and its experiments (see the module docstring)."""
    for path in paths:
        snap, files, found = markdown_tables(path, count_tables, "table of | Model | N x <device> | … |")
        for name, file_tables in found.items():
            _import_file(snap, files[name], file_tables, ctx)


def _import_file(snap: Snapshot, file: StoredFile, file_tables: list[CountTable], ctx: ImportContext) -> None:
    source_id = snapshot_source_id(snap, file)
    skipped: list[str] = []
    for number, table in enumerate(file_tables, start=1):
        ctx.plan.add(*_table_records(snap, file, table, number, source_id, skipped, ctx))
    ctx.plan.add(snapshot_file_source(
        snap, file, ctx, source_id=source_id, format_name=FORMAT, label="device count tables",
        imported="Its tables of the shape | Model | N x <device> | … | are imported, one arm per cell; other tables "
                 "are not.", skipped=skipped, skipped_heading="Not imported (malformed):",
        why="stores the file the imported device-count records quote"))


def _ref(ctx: ImportContext, kind: RecordKind, rid: str | None, stated: str) -> str:
    """``rid`` when this ledger has it, else the resolver's match for the stated name (or its placeholder)."""
    if rid is not None and rid in ctx.resolver.records:
        return rid
    return ctx.resolver.resolve(kind, stated or None)


def _table_records(snap: Snapshot, file: StoredFile, table: CountTable, number: int, source_id: str,
                   skipped: list[str], ctx: ImportContext) -> list[Benchmark]:
    where = f"`{file.path}` table {number}"
    conditions = table.conditions
    devices = {name for _, name in table.counts.values()}
    if len(devices) != 1:
        skipped.append(f"{where}: its columns name {len(devices)} devices ({', '.join(sorted(devices))}); one expected")
        return []
    (column_device,) = devices
    stated_device = conditions.get("VMs", column_device) if column_device.upper() == "VM" else column_device
    version = _VERSION.search(table.conditions_line)
    out = []
    for line, cells in table.rows:
        if len(cells) != len(table.columns):
            skipped.append(f"{where}: row {line[:60]!r}…: {len(cells)} cells, the header has {len(table.columns)}")
            continue
        notes: list[str] = []
        arms = [arm for i, (n, _) in table.counts.items()
                if (arm := _arm(n, table.columns[i], cells[i], line, table, source_id, notes))]
        if not arms:
            skipped.append(f"{where}: row {cells[0]!r}: no cell holds a time ({'; '.join(notes)})")
            continue
        subject = Subject(
            model=_ref(ctx, "model", catalog.model(cells[0]), cells[0]),
            engine=_ref(ctx, "engine", catalog.ENGINE, "Distributed Llama"),
            accelerator=_ref(ctx, "accelerator", catalog.accelerator(stated_device), stated_device),
            weights=_weights(conditions.get("Weights"), table.conditions_line, source_id, ctx),
            engine_version=known(version["v"], table.conditions_line, source_id, "the conditions line above the table")
            if version else None)
        workload = Workload(scenario="per-request")
        per_s = hoist_shared(arms, subject, "subject")
        per_w = hoist_shared(arms, workload, "workload")
        fill_omitted(subject, "not stated with the table", skip=per_s)
        fill_omitted(workload, "not stated with the table", skip=per_w)
        lines = ctx.resolver.take_unmatched_lines()
        body = (f"Imported by `benchledger import {FORMAT}` from {snap.repo_url} at commit {snap.commit}: {where} "
                f"(**{table.title}**; {table.header[:80]}…), the row {cells[0]!r}; every number is quoted with its "
                f"row from the file stored whole in source `{source_id}`. Each arm is one cluster size (the column's "
                "N devices, joined over Ethernet, the model split across them by tensor parallelism). The bold "
                "figure is the average time to generate one token; the I (root node's inference time) and T "
                "(network transfer time) parts are not imported. Stated for the table and kept here only: "
                f"{table.conditions_line.removeprefix('<sub><sup>').removesuffix('</sup></sub>')}.\n"
                + ("\nNot imported:\n\n" + "".join(f"- {n}\n" for n in notes) if notes else "")
                + ("\n## Stated by the input, not yet matched to ledger records\n\n" + "\n".join(lines) + "\n"
                   if lines else ""))
        out.append(Benchmark(
            kind="benchmark", id=record_id(slugify(f"{owner_repo(snap).split('/')[0]}-{cells[0]}-{stated_device}")[
                :64].strip("-"), snap.repo_url, file.path, table.header, line),
            title=f"{cells[0]} on {table.title} clusters ({owner_repo(snap)}, {snap.committed.isoformat()})",
            measured_by="self", subject=subject, workload=workload, arms=arms, sources=[source_id],
            history=[created(ctx, FORMAT, "bulk import of a public device-count table")], body=body))
    return out


def _weights(stated: str | None, line: str, source_id: str, ctx: ImportContext) -> Condition | None:
    """The conditions line's ``Weights = …`` as the format record it names (``catalog.WEIGHTS``), quoted with the
    line; a value with no record in this ledger stays unknown with the text; None when the line states none."""
    if stated is None:
        return None
    fid = catalog.weights(stated)
    record = ctx.resolver.records.get(fid) if fid else None
    if fid is None or getattr(record, "kind", None) != "format":
        return Unknown(unknown="unchecked", note=f"'Weights = {stated}' stated: no format record for it in this ledger")
    return known(fid, line, source_id, f"'Weights = {stated}' stated: distributed-llama's own 4-bit block format")


def _arm(n: int, column: str, cell: str, line: str, table: CountTable, source_id: str, notes: list[str]) -> Arm | None:
    found = _MS.search(cell)
    if found is None:
        notes.append(f"{column}: {re.sub(r'<[^>]+>', '', cell).strip() or 'empty'} (nothing measured)")
        return None
    samples = table.conditions.get("nSamples")
    results: list[Result] = [quoted_result("tpot", "mean", float(found["ms"]), "ms", line, source_id,
                                           "dllama-token-time", f"column {column!r}: average time per generated token"
                                           + (f" (the table states nSamples = {samples})" if samples else ""))]
    if found["tps"]:
        results.append(quoted_result("per_stream_throughput", "mean", float(found["tps"]), "tok/s", line, source_id,
                                     "dllama-tokens-per-second", f"column {column!r}: the t/s after the time"))
    count = known(n, table.header, source_id, f"column {column!r}")
    return Arm(name=f"x{n}", subject=SubjectOverride(accelerator_count=count, parallelism=Parallelism(tp=count)),
               results=results)


__all__ = ["FORMAT", "CountTable", "build_snapshots", "count_tables"]
