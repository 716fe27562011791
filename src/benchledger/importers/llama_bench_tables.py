"""``llama-bench-tables``: llama.cpp ``llama-bench`` result tables in the Markdown files of a stored git snapshot.

Read at one pinned commit (``git_snapshot``), never downloaded. Each Markdown file holding a table of the shape
``| GPU | Model | tg 512 | … | pp 512 | … |`` (a hardware column, a model column, one column per llama-bench test)
becomes one source storing the file whole, byte for byte (``stored_files``); each hardware × model-size group of
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

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from benchledger.errors import ImportFormatError
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
from benchledger.importers.references import PLACEHOLDER_IDS
from benchledger.importers.stored_files import storable, stored_block
from benchledger.schema import (
    Arm,
    Benchmark,
    HistoryEntry,
    Known,
    Parallelism,
    Source,
    Subject,
    SubjectOverride,
    Workload,
    WorkloadOverride,
)
from benchledger.schema.common import RecordKind

FORMAT = "llama-bench-tables"
_TEST = re.compile(r"^(?P<kind>tg|pp)\s*(?P<n>\d+)$", re.IGNORECASE)
_MODEL_CELL = re.compile(r"^(?P<size>\d+(?:\.\d+)?[BbMm])\s+(?P<fmt>[A-Za-z0-9_]+)$")
_HARDWARE_CELL = re.compile(r"^(?P<name>.+?)(?:\s*[*×]\s*(?P<count>\d+))?$")
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


def build_snapshots(paths: list[Path], ctx: ImportContext) -> None:
    """Add one source per Markdown file with llama-bench tables and its experiments (see the module docstring)."""
    for path in paths:
        snap = Snapshot.open(path)
        files = snap.read([p for p in sorted(snap.blobs) if p.lower().endswith(".md")])
        found = {p: [t for t in tables(f.text) if t.wide] for p, f in files.items()}
        found = {p: ts for p, ts in found.items() if ts}
        if not found:
            raise ImportFormatError(path, "*.md", f"no llama-bench table (| GPU | Model | tg N | pp N |) at commit "
                                    f"{snap.commit}")
        for name, file_tables in found.items():
            _import_file(snap, files[name], file_tables, ctx)


def _owner_repo(snap: Snapshot) -> str:
    return "/".join(snap.repo_url.rstrip("/").split("/")[-2:])


def _import_file(snap: Snapshot, file: StoredFile, file_tables: list[Table], ctx: ImportContext) -> None:
    why = storable(file.text)
    if why is not None:
        raise ImportFormatError(Path(snap.git_dir) / file.path, "", f"cannot be stored whole: {why}")
    owner_repo = _owner_repo(snap)
    source_id = record_id(slugify(f"{owner_repo}-{file.path}")[:60].strip("-"), snap.repo_url, snap.commit, file.path)
    command = next((line.strip() for line in file.text.split("\n") if "llama-bench " in line), None)
    existing = _existing_numbers(ctx, source_id)
    skipped: list[str] = []
    for number, table in enumerate(file_tables, start=1):
        for record in _table_records(snap, file, table, number, source_id, command, existing, skipped, ctx):
            ctx.plan.add(record)
    intro = (f"{snap.repo_url} at commit {snap.commit} ({snap.committed.isoformat()}), file `{file.path}`, stored "
             "whole below, byte for byte, after a line naming its path, git blob id and sha256. Only its tables of "
             "the shape | GPU | Model | tg N | pp N | are imported; other tables (summaries restating those cells, "
             "sizes, perplexity) are not.\n")
    notes = "".join(f"- {s}\n" for s in skipped)
    body = intro + (f"\nNot imported (malformed):\n\n{notes}" if notes else "") + "\n" + stored_block(
        file.path, file.blob, file.sha256, file.text)
    ctx.plan.add(Source(
        kind="source", id=source_id, title=f"{owner_repo} {file.path} at {snap.commit[:7]} (llama-bench tables)",
        url=f"{snap.repo_url}/blob/{snap.commit}/{file.path}", source_type="github-file", publisher=owner_repo,
        published=snap.committed, retrieved=ctx.options.retrieved,
        retrieved_via=f"benchledger import {FORMAT} (stored snapshot at commit {snap.commit})",
        sha256=hashlib.sha256(body.encode("utf-8")).hexdigest(),
        history=[_created(ctx, "stores the file the imported llama-bench records quote")], body=body))


def _created(ctx: ImportContext, why: str) -> HistoryEntry:
    return HistoryEntry(date=ctx.options.retrieved, change=f"created by benchledger import {FORMAT}", why=why,
                        numbers_changed=True)


def _stated(condition: object) -> object:
    """What a condition states (a bare scalar or a ``Known``'s value); None when it is unknown or absent."""
    if isinstance(condition, Known):
        return condition.value
    return condition if isinstance(condition, str | int | float | bool) else None


def _existing_numbers(ctx: ImportContext, source_id: str) -> dict[tuple[object, ...], str]:
    """(model, accelerator, count, metric, value) → id of a ledger record (not from this source) holding it."""
    out: dict[tuple[object, ...], str] = {}
    for rid, record in ctx.resolver.records.items():
        if not isinstance(record, Benchmark) or source_id in record.sources:
            continue
        count = _stated(record.subject.accelerator_count)
        for arm in record.arms:
            for r in arm.results:
                out.setdefault((record.subject.model, record.subject.accelerator, count, r.metric, float(r.value)),
                               rid)
    return out


def _ref(ctx: ImportContext, kind: RecordKind, rid: str | None, stated: str) -> str:
    if rid is not None and rid in ctx.resolver.records:
        return rid
    ctx.resolver.unmatched.append((kind, stated))
    ctx.resolver.placeholders.add(kind)
    return PLACEHOLDER_IDS[kind]


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
            model=_ref(ctx, "model", model_id, f"{family or 'unnamed family'} {group.size}"),
            engine=_ref(ctx, "engine", "llama-cpp", "llama.cpp"),
            accelerator=_ref(ctx, "accelerator", catalog.accelerator(hw["name"]), f"hardware {hw['name']!r}"),
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
            kind="benchmark", id=record_id(slugify(f"{_owner_repo(snap).split('/')[0]}-{family or ''}-{group.size}-"
                                                   f"{hw['name']}-x{count}")[:64].strip("-"), snap.repo_url,
                                           file.path, table.header, group.hardware_line, group.size),
            title=f"llama-bench, {family or 'model'} {group.size} on {group.hardware} ({_owner_repo(snap)}, "
                  f"{snap.committed.isoformat()})",
            measured_by="third-party", subject=subject, workload=workload, arms=arms, sources=[source_id],
            history=[_created(ctx, "bulk import of a community llama-bench table")], body=body))
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
        twin = existing.get((subject.model, subject.accelerator, _stated(subject.accelerator_count), metric, value))
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
