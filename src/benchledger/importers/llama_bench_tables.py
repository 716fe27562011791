"""``llama-bench-tables``: llama.cpp ``llama-bench`` result tables in the Markdown files of a stored git snapshot.

Read at one pinned commit (``git_snapshot``), never downloaded. Each Markdown file holding a table of the shape
``| GPU | Model | tg 512 | … | pp 512 | … |`` (a hardware column, a model column, one column per llama-bench test),
or an eval-rate table (``llama_bench_eval``), becomes one source storing the file whole, byte for byte (``stored_files``); each hardware × model-size group of
rows becomes one experiment, and each (weight format, test) cell one arm whose number is quoted with its row.
A malformed row or cell is named in the source's "Not imported" list and skipped; the rest still imports.
The hardware and model names the tables use are mapped in ``llama_bench_catalog``.

Mapping (foreign field → ledger field, or why not):

| table | ledger |
|---|---|
| hardware cell ``4090 24GB * 4`` (empty: the row above's) | ``subject.accelerator`` (catalog) and ``accelerator_count`` 4 (no ``* N``: 1) |
| model cell ``8B Q4_K_M`` and the nearest heading naming the family (``### LLaMA 3``) | ``subject.model`` (catalog); ``subject.weights`` Q4_K_M → ``q4-k-m``, F16 → ``fp16`` |
| column ``tg N`` | ``workload.output_tokens`` N; ``per_stream_throughput`` mean tok/s (llama-bench's batch-1 decode rate) |
| column ``pp N`` | ``workload.input_tokens`` N; ``prefill_throughput`` mean tok/s |
| ``OOM`` cell | no arm (out of memory: nothing measured); named in the record body |
| innermost heading above the table (OS, CUDA, …) | ``subject.host`` |
| (llama-bench itself) | ``workload.concurrency`` 1: it runs each test as one sequence; the file's ``llama-bench`` command line goes in the note |
| llama.cpp build, split mode across GPUs, warmup, prompt content | ``unknown: source_omits`` |
| a cell whose number another ledger record already holds for the same model, hardware and metric | no arm: the same measurement, named in the record body (e.g. hand-entered from an older commit) |
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from benchledger.importers import llama_bench_catalog as catalog
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
from benchledger.importers.llama_bench_eval import eval_records, is_eval
from benchledger.importers.llama_bench_markdown import (
    FORMAT,
    Table,
    existing_numbers,
    ref,
    stated,
    tables,
)
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
    Parallelism,
    Subject,
    SubjectOverride,
    Workload,
    WorkloadOverride,
)

_MODEL_CELL = re.compile(r"^(?P<size>\d+(?:\.\d+)?[BbMm])\s+(?P<fmt>[A-Za-z0-9_]+)$")
_HARDWARE_CELL = re.compile(r"^(?P<name>.+?)(?:\s*[*×]\s*(?P<count>\d+))?$")


def build_snapshots(paths: list[Path], ctx: ImportContext) -> None:
    """Add one source per Markdown file with llama-bench tables and its experiments (see the module docstring)."""
    for path in paths:
        snap, files, found = markdown_tables(
            path, lambda text: [t for t in tables(text) if t.wide or is_eval(t)],
            "llama-bench table (| GPU | Model | tg N | pp N |) or eval-rate table (| System | … | Eval Rate |)")
        for name, file_tables in found.items():
            _import_file(snap, files[name], file_tables, ctx)


def _import_file(snap: Snapshot, file: StoredFile, file_tables: list[Table], ctx: ImportContext) -> None:
    source_id = snapshot_source_id(snap, file)
    command = next((line.strip() for line in file.text.split("\n") if "llama-bench " in line), None)
    existing = existing_numbers(ctx, source_id)
    skipped: list[str] = []
    for number, table in enumerate(file_tables, start=1):
        records = (eval_records(snap, file, table, number, source_id, existing, skipped, ctx) if is_eval(table)
                   else _table_records(snap, file, table, number, source_id, command, existing, skipped, ctx))
        ctx.plan.add(*records)
    shapes = ("| System | CPU/GPU | Eval Rate | … |" if all(is_eval(t) for t in file_tables)
              else "| GPU | Model | tg N | pp N |")
    ctx.plan.add(snapshot_file_source(
        snap, file, ctx, source_id=source_id, format_name=FORMAT, label="llama-bench tables",
        imported=f"Only its tables of the shape {shapes} are imported; other tables (summaries restating those "
                 "cells, sizes, perplexity) are not.",
        skipped=skipped, why="stores the file the imported llama-bench records quote"))


@dataclass
class _Group:
    """The rows of one hardware × model size: the hardware row's line, the rows (line, format cell, cells)."""

    hardware: str
    hardware_line: str
    size: str
    rows: list[tuple[str, str, list[str]]] = field(default_factory=list)


def _groups(table: Table, skipped: list[str], where: str) -> list[_Group]:
    groups: dict[tuple[str, str, str], _Group] = {}
    hardware: tuple[str, str] | None = None
    for lineno, line, cells in table.rows:
        if cells[0]:  # a row naming hardware starts a new group even when the rest of it is malformed
            hardware = (cells[0], line)
        if len(cells) != len(table.columns):
            skipped.append(f"{where} line {lineno}: {len(cells)} cells, the header has {len(table.columns)}")
            continue
        if hardware is None:
            skipped.append(f"{where} line {lineno}: no hardware named above this row")
            continue
        model = _MODEL_CELL.match(cells[1])
        if model is None:
            skipped.append(f"{where} line {lineno}: model cell {cells[1]!r} is not '<size> <format>'")
            continue
        key = (hardware[1], hardware[0], model["size"].upper())
        group = groups.setdefault(key, _Group(hardware[0], hardware[1], model["size"].upper()))
        group.rows.append((line, model["fmt"], cells))
    return list(groups.values())


def _table_records(snap: Snapshot, file: StoredFile, table: Table, number: int, source_id: str, command: str | None,
                   existing: dict[tuple[object, ...], str], skipped: list[str], ctx: ImportContext) -> list[Benchmark]:
    where = f"`{file.path}` table {number}"
    family = catalog.family(table.headings)
    formats = {rid for rid, r in ctx.resolver.records.items() if getattr(r, "kind", None) == "format"}
    out = []
    for group in _groups(table, skipped, where):
        hw = _HARDWARE_CELL.match(group.hardware)
        assert hw is not None  # the pattern matches any non-empty text
        count = int(hw["count"] or 1)
        model_id = catalog.MODELS.get((family, group.size.lower())) if family else None
        subject = Subject(
            model=ref(ctx, "model", model_id, f"{family or 'unnamed family'} {group.size}"),
            engine=ref(ctx, "engine", "llama-cpp", "llama.cpp"),
            accelerator=ref(ctx, "accelerator", catalog.accelerator(hw["name"]), f"hardware {hw['name']!r}"),
            accelerator_count=known(count, group.hardware_line, source_id, "the '* N' after the hardware name")
            if hw["count"] else known(1, note="no '* N' after the hardware name: one device"),
            parallelism=Parallelism(tp=known(1, note="one device") if count == 1 else omitted(
                "how llama.cpp split the model across the GPUs (split mode) is not stated")),
            engine_version=omitted("no llama.cpp build or commit stated with the table"))
        if table.headings:
            heading = table.headings[-1]
            subject.host = known(heading.lstrip("#").strip(), heading, source_id)
        notes: list[str] = []
        arms: list[Arm] = []
        for line, fmt, cells in group.rows:
            for arm in _arms(table, line, fmt, cells, subject, source_id, formats, existing, notes):
                if any(a.name == arm.name for a in arms):
                    notes.append(f"{fmt}: a second row for the same format and test ({arm.name}); the first is kept")
                else:
                    arms.append(arm)
        if not arms:
            skipped.append(f"{where}: {group.hardware} {group.size}: no cell imported ({'; '.join(notes)})")
            continue
        workload = Workload(scenario="per-request", concurrency=known(1, note="llama-bench runs each test as one "
                                                                        "sequence (batch 1)" + (
                                                                            f"; the file's command: {command}"
                                                                            if command else "")))
        per_w = hoist_shared(arms, workload, "workload")
        per_s = hoist_shared(arms, subject, "subject")
        fill_omitted(workload, "not stated with the table", skip=per_w)
        fill_omitted(subject, "not stated with the table", skip=per_s)
        lines = ctx.resolver.take_unmatched_lines()
        body = (f"Imported by `benchledger import {FORMAT}` from {snap.repo_url} at commit {snap.commit}: {where} "
                f"({table.header.strip()}), the rows of {group.hardware} × {group.size}; every number is quoted with "
                f"its row from the file stored whole in source `{source_id}`. tg columns are llama-bench's decode "
                "speed for that many generated tokens, pp columns its prompt-processing speed for that prompt "
                "length (average tokens/s).\n"
                + ("\nNot imported:\n\n" + "".join(f"- {n}\n" for n in notes) if notes else "")
                + ("\n## Stated by the input, not yet matched to ledger records\n\n" + "\n".join(lines) + "\n"
                   if lines else ""))
        out.append(Benchmark(
            kind="benchmark", id=record_id(slugify(f"{owner_repo(snap).split('/')[0]}-{family or ''}-{group.size}-"
                                                   f"{hw['name']}-x{count}")[:64].strip("-"), snap.repo_url,
                                           file.path, table.header, group.hardware_line, group.size),
            title=f"llama-bench, {family or 'model'} {group.size} on {group.hardware} ({owner_repo(snap)}, "
                  f"{snap.committed.isoformat()})",
            measured_by="third-party", subject=subject, workload=workload, arms=arms, sources=[source_id],
            history=[created(ctx, FORMAT, "bulk import of a community llama-bench table")], body=body))
    return out


def _arms(table: Table, line: str, fmt: str, cells: list[str], subject: Subject, source_id: str, formats: set[str],
          existing: dict[tuple[object, ...], str], notes: list[str]) -> list[Arm]:
    fmt_id = catalog.FORMATS.get(fmt.lower())
    weights = (known(fmt_id, line, source_id, f"model column {cells[1]!r}") if fmt_id in formats
               else omitted(f"weight format {fmt!r} has no format record"))
    arms = []
    for index, (kind, tokens) in table.tests.items():
        col, cell = table.columns[index], cells[index].strip("* ")
        if cell.upper() == "OOM":
            notes.append(f"{fmt} {col}: OOM (out of memory, nothing measured)")
            continue
        try:
            value = float(cell)
        except ValueError:
            notes.append(f"{fmt} {col}: cell {cells[index]!r} is not a number")
            continue
        metric = "per_stream_throughput" if kind == "tg" else "prefill_throughput"
        twin = existing.get((subject.model, subject.accelerator, stated(subject.accelerator_count), metric, value))
        if twin is not None:
            notes.append(f"{fmt} {col}: {cell} tok/s is already in record `{twin}` (the same measurement)")
            continue
        size = known(tokens, table.header, source_id, f"column {col!r}: tokens {'generated' if kind == 'tg' else 'in the prompt'}")
        other = omitted("a tg test generates without a prompt, a pp test only processes one; not restated")
        workload = (WorkloadOverride(output_tokens=size, input_tokens=other) if kind == "tg"
                    else WorkloadOverride(input_tokens=size, output_tokens=other))
        arms.append(Arm(name=slugify(f"{fmt_id or fmt}-{kind}{tokens}"), subject=SubjectOverride(weights=weights),
                        workload=workload, results=[quoted_result(
                            metric, "mean", value, "tok/s", line, source_id, f"llama-bench-{kind}",
                            f"column {col!r}, average tokens/s")]))
    return arms


__all__ = ["FORMAT", "Table", "build_snapshots", "tables"]
