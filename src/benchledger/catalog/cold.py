"""The cold build of the cached index: every record file parsed, checked and flattened into table rows.

A large ledger is built side by side (``workers.py``): this process parses the records outside
``benchmarks/`` (the context every check may read), then each of ``jobs`` processes — this one and
``jobs - 1`` forked workers — claims runs of the benchmark files one at a time (``_chunks``, in name order,
each the first left: ``workers.Claims``, so the faster builds more),
parses them and, over its records plus the context, runs the ``record`` checks, the ``split`` checks' facts
and the table producers for its records alone, writing the rows to files (``ledger.index.write_rows``; the
``record`` checks' findings and the ``split`` facts as the rows of ``_cache_findings`` and ``_cache_facts``)
— what ``refresh._apply`` does for changed files. This process also does the same for the context records
and lists the files in sub-folders while the workers run (its own runs need no copy sent back; a worker
sends each of its parts back as soon as it is built); a thread loads the rows into the new database while
the rest is built (``loading.py``), in name order whoever built them: the context, then the runs in groups
(``RUNS_PER_LOAD``), each once all its runs are built. Then it combines: the
``split`` findings from every record's facts, the ``files`` findings from every file that failed to load,
the ``runs`` checks. The result is what one process gives (``serial_build``) for any number of workers
(tests/integration/test_index_cold.py). A ledger where that would not hold — an id used twice, a record
outside its kind's folder, a check without ``SCOPE``, a table without a record key — is built in one
process (the rows loaded so far are discarded), and so is a small one (``MIN_PARALLEL_FILES``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchledger.audit.context import AuditContext, Excerpts
from benchledger.audit.finding import Finding
from benchledger.catalog import checking
from benchledger.catalog.cachetables import FACT_COLUMNS, FILE_COLUMNS, LOCAL_COLUMNS, fact_rows, local_rows
from benchledger.catalog.entries import Entry, load_entry
from benchledger.catalog.loading import Arrivals, Loading, RowLoader
from benchledger.catalog.scan import FileStat
from benchledger.catalog.tables import EFFICIENCY_COLUMNS, efficiency_rows, efficiency_table_rows
from benchledger.catalog.workers import Claims, ForkedCalls
from benchledger.ledger.index import RECORD_KEYS, TABLES, Columns, RowsFile, write_rows
from benchledger.ledger.paths import misplaced_files
from benchledger.ledger.rows import Row
from benchledger.ledger.store import Ledger, misplaced_file_errors
from benchledger.perfmodel.ceiling import CeilingInputs
from benchledger.schema import KIND_FOLDERS, Benchmark, build_models

BENCHMARK_FOLDER = KIND_FOLDERS["benchmark"]
EFFICIENCY_TABLE = "t_efficiency"
MIN_PARALLEL_FILES = 1000
"""Fewer benchmark files than this are built in one process (workers would cost more than they save); more
are built by at most one process per half as many."""
CHUNKS = 32
"""The benchmark files are split into this many runs, claimed one at a time (``workers.Claims``): whichever
process is faster builds more of them, and no process waits long for the last."""
RUNS_PER_LOAD = 4
"""The runs' rows are loaded this many consecutive runs at a time, each group once all its runs are built,
whoever built them: the last load, alone after the build, has one group's rows (each load also has a fixed
cost, ~60 ms, and the rows of a run loaded alone cost about three times as much)."""


@dataclass
class ColdBuild:
    """Everything the index is filled from: the file entries, the findings before waivers, the rows."""

    entries: dict[str, Entry]
    runs: list[Finding]
    """Findings of the ``runs`` checks."""
    split: list[Finding]
    """Findings of the ``split`` checks, from every record's facts."""
    other: list[Finding]
    """Findings of the ``files`` checks (and of any check without ``SCOPE``)."""
    records_checked: int
    tables: dict[str, list[RowsFile]] = field(default_factory=dict)
    """Table name (each of ``built_tables()``) → its rows, in files to load in this order. The ``record``
    checks' findings and the ``split`` checks' facts are here only as rows (``_cache_findings``,
    ``_cache_facts``): made where the records were checked, never sent back as objects."""
    workers: int = 0
    """How many processes built it side by side, this one included (0: this process alone)."""
    misplaced: list[Path] = field(default_factory=list)
    """The files in sub-folders of kind folders (``ledger.paths.misplaced_files``), as the build found them."""
    parsed: Ledger = field(default_factory=lambda: Ledger(root=Path()))
    """The records this process parsed: every record (one process), those outside ``benchmarks/`` (side by side)."""


def built_tables() -> dict[str, Columns]:
    """The tables a cold build gives rows for (name → columns), in the order they are created."""
    return {**{name: columns for name, (columns, _) in TABLES.items()}, EFFICIENCY_TABLE: EFFICIENCY_COLUMNS,
            "_cache_files": FILE_COLUMNS, "_cache_findings": LOCAL_COLUMNS, "_cache_facts": FACT_COLUMNS}


def cold_build(root: Path, files: dict[str, FileStat], workdir: Path, jobs: int, *,
               min_parallel: int = MIN_PARALLEL_FILES, rows: RowLoader | None = None) -> ColdBuild:
    """Build from every file: in up to ``jobs`` worker processes when the ledger allows it, else in this one.
    ``rows``: the database the rows are loaded into as they are made (``loading.py``; its tables are
    ``built_tables()``)."""
    benchmarks = [(rel, stat) for rel, stat in files.items() if _folder(rel) == BENCHMARK_FOLDER]
    workers = min(jobs, len(benchmarks) // max(1, min_parallel // 2)) if len(benchmarks) >= min_parallel else 0
    if workers >= 2 and _splittable():
        built = _parallel_build(root, files, benchmarks, workdir, workers, rows)
        if built is not None:
            return built
        if rows is not None:
            rows.discard()
    return serial_build(root, files, workdir, rows)


def serial_build(root: Path, files: dict[str, FileStat], workdir: Path, rows: RowLoader | None = None) -> ColdBuild:
    """Build from every file in this process: the whole ledger loaded, ``checking.run_checks`` over it."""
    ledger = Ledger(root=root)
    entries = {rel: load_entry(root, rel, stat, ledger) for rel, stat in files.items()}
    misplaced = misplaced_files(root)
    ledger.errors.extend(misplaced_file_errors(root, misplaced))
    results = checking.run_checks(ledger)
    made: dict[str, Iterable[Row]] = {name: producer(ledger) for name, (_, producer) in TABLES.items()}
    made[EFFICIENCY_TABLE] = efficiency_rows(ledger)
    made.update(_cache_rows(entries.values(), results.local, results.facts))
    written = {name: write_rows(workdir / f"all-{name}.json", made_rows) for name, made_rows in made.items()}
    if rows is not None:
        rows.load({name: [f] for name, f in written.items()})
    return ColdBuild(entries, results.runs, results.split, results.other, len(ledger) + len(ledger.errors),
                     {name: [f] for name, f in written.items()}, misplaced=misplaced, parsed=ledger)


def _cache_rows(entries: Iterable[Entry], local: dict[str, list[Finding]],
                facts: dict[str, dict[str, Any]]) -> dict[str, Iterable[Row]]:
    return {"_cache_files": [e.row() for e in entries], "_cache_findings": local_rows(local),
            "_cache_facts": fact_rows(facts)}


@dataclass
class _Part:
    """What one process built for its files (plain data: it is sent back from a worker)."""

    entries: list[Entry]
    facts: dict[str, dict[str, Any]]
    tables: dict[str, list[RowsFile]]


def _splittable() -> bool:
    """Whether every check and table is per record (else the whole ledger is needed in one process)."""
    return not checking.checks_of("ledger") and not set(TABLES) - set(RECORD_KEYS) - {"t_metrics"}


def _parallel_build(root: Path, files: dict[str, FileStat], benchmarks: list[tuple[str, FileStat]],
                    workdir: Path, workers: int, rows: RowLoader | None) -> ColdBuild | None:
    """This process builds the context, then it and the workers each build the first run left, until none is
    left. The rows of each part are loaded (``rows``) while the rest is built, in the runs' order whatever the
    timing: the context, then each group of ``RUNS_PER_LOAD`` runs once they are all built."""
    chosen = {rel for rel, _ in benchmarks}
    context = Ledger(root=root)
    context_entries = [load_entry(root, rel, stat, context) for rel, stat in files.items() if rel not in chosen]
    chunks = _chunks(benchmarks)
    reference = _Reference(Excerpts(context), CeilingInputs(context))
    claims = Claims(len(chunks), workdir / "claims.lock")
    calls: list[Callable[[], Iterator[tuple[int, _Part]]]] = [
        functools.partial(_claimed_parts, root, context, reference, chunks, claims, workdir)
        for _ in range(workers - 1)]
    load = rows.load if rows is not None else _no_load
    interrupt = rows.interrupt if rows is not None else _no_interrupt
    build_models()  # once here, not once per worker: the forked workers share them
    # (on an exception the parts stop arriving first, then the workers end, then the loads)
    with claims, Loading(_tables_of, load, interrupt) as loading, ForkedCalls(calls) as forked, \
            Arrivals[_Part](forked) as arrivals:
        misplaced = misplaced_files(root)
        context_part = _context_part(root, context, reference, context_entries, workdir)
        loading.put(functools.partial(_given, context_part))
        for start in range(0, len(chunks), RUNS_PER_LOAD):  # each group loaded once all its runs are built
            group = range(start, min(start + RUNS_PER_LOAD, len(chunks)))
            loading.put(functools.partial(_arrived, arrivals, group))
        while (i := claims.first()) is not None:
            arrivals.add(i, _chunk_part(root, context, reference, chunks[i], workdir, f"chunk{i}"))
        parts = loading.finish()
    entries_by_path = {e.stat.path: e for part in parts for e in part.entries}
    entries = {rel: entries_by_path[rel] for rel in files}
    ids = [e.record_id for e in entries.values() if e.record_id]
    if len(ids) != len(set(ids)) or any(_misplaced(e) for e in entries.values()):
        return None  # the whole ledger decides which file of an id wins, and what a misplaced record changes
    facts: dict[str, dict[str, Any]] = {}
    for part in parts:
        for name, by_record in part.facts.items():
            facts.setdefault(name, {}).update(by_record)
    kinds = {e.record_id: e.kind for e in entries.values() if e.record_id and e.kind}
    errors = [error for e in entries.values() if (error := e.load_error(root)) is not None]
    skeleton = Ledger(root=root, errors=[*errors, *misplaced_file_errors(root, misplaced)])
    runs_found = [f for _, check in checking.checks_of("runs") for f in check(AuditContext(context))]
    tables = {name: [f for part in parts for f in part.tables.get(name, [])] for name in built_tables()}
    return ColdBuild(entries, runs_found, checking.split_findings(facts, kinds), checking.file_findings(skeleton),
                     len(kinds) + len(skeleton.errors), tables, workers, misplaced, context)


def _chunks(benchmarks: list[tuple[str, FileStat]]) -> list[list[tuple[str, FileStat]]]:
    """The benchmark files in ``CHUNKS`` runs (or one file each), in name order: the same runs for any number
    of workers, so the same row files, loaded in the same order."""
    count = max(1, min(CHUNKS, len(benchmarks)))
    size = -(-len(benchmarks) // count)
    return [benchmarks[i:i + size] for i in range(0, len(benchmarks), size)]


def _claimed_parts(root: Path, context: Ledger, reference: _Reference, chunks: list[list[tuple[str, FileStat]]],
                   claims: Claims, workdir: Path) -> Iterator[tuple[int, _Part]]:
    """A worker's parts, each sent back as soon as it is built: each run it claims, the first left first
    (as this process claims)."""
    for i in iter(claims.first, None):
        yield i, _chunk_part(root, context, reference, chunks[i], workdir, f"chunk{i}")


def _arrived(arrivals: Arrivals[_Part], group: range) -> _Part:
    """The parts of these runs as one, once each is built (by this process or a worker)."""
    return _merged(arrivals.take(group))


def _merged(parts: list[_Part]) -> _Part:
    """Parts as one: their entries, facts and row files in this order."""
    facts: dict[str, dict[str, Any]] = {}
    for part in parts:
        for name, by_record in part.facts.items():
            facts.setdefault(name, {}).update(by_record)
    tables = {name: [f for part in parts for f in part.tables.get(name, [])] for name in built_tables()}
    return _Part([e for part in parts for e in part.entries], facts, {k: v for k, v in tables.items() if v})


def _tables_of(part: _Part) -> dict[str, list[RowsFile]]:
    return part.tables


def _given(part: _Part) -> _Part:
    return part


def _no_load(_files: dict[str, list[RowsFile]]) -> None:
    pass


def _no_interrupt() -> None:
    pass


@dataclass
class _Reference:
    """What every run is checked against, made once per process rather than once per run: the sources'
    normalised excerpts and the ceiling's reference inputs. Both read only reference records, which are all in
    the context (a record of another kind in ``benchmarks/`` is built in one process)."""

    excerpts: Excerpts
    inputs: CeilingInputs


def _context_part(root: Path, context: Ledger, reference: _Reference, entries: list[Entry], workdir: Path) -> _Part:
    """The records outside ``benchmarks/``: their findings, facts and rows, and the tables not per record."""
    producers = {name: producer for name, (_, producer) in TABLES.items()}
    return _part(context, context, reference, entries, producers, workdir, "context")


def _chunk_part(root: Path, context: Ledger, reference: _Reference, files: list[tuple[str, FileStat]],
                workdir: Path, tag: str) -> _Part:
    """One run of benchmark files, checked together with the context records (in a worker, or in this process)."""
    parsed = Ledger(root=root)
    entries = [load_entry(root, rel, stat, parsed) for rel, stat in files]
    whole = Ledger(root=root, records=dict(context.records), paths=dict(context.paths))
    for record_id, record in parsed.records.items():
        whole.add(parsed.paths[record_id], record)
    producers = {name: producer for name, (_, producer) in TABLES.items() if name in RECORD_KEYS}
    return _part(parsed, whole, reference, entries, producers, workdir, tag)


def _part(own: Ledger, whole: Ledger, reference: _Reference, entries: list[Entry],
          producers: dict[str, Callable[[Ledger], Iterable[Row]]], workdir: Path, tag: str) -> _Part:
    """Facts and rows (the ``record`` checks' findings among them) of the records of ``own``, checked as part
    of ``whole``."""
    ids = set(own.records)
    made: dict[str, Iterable[Row]] = {name: producer(own) for name, producer in producers.items()}
    # the checks read only the records of ``own`` (``wanted``: not the context again in every part); its
    # efficiency of each benchmark is computed once, for the rows and the check
    ctx = AuditContext(whole, wanted=frozenset(ids))
    ctx.__dict__.update(excerpts=reference.excerpts, ceiling_inputs=reference.inputs)  # (its cached properties)
    made[EFFICIENCY_TABLE] = efficiency_table_rows(
        arm for record in own.typed("benchmark", Benchmark) for arm in ctx.efficiency(record))
    facts = checking.record_facts(whole, ids, ctx=ctx)
    made.update(_cache_rows(entries, checking.record_findings(whole, ids, ctx=ctx), facts))
    tables = {name: [write_rows(workdir / f"{tag}-{name}.json", rows)] for name, rows in made.items()}
    return _Part(entries, facts, tables)


def _folder(rel: str) -> str:
    return rel.split("/", 1)[0]


def _misplaced(entry: Entry) -> bool:
    return entry.kind is not None and KIND_FOLDERS.get(entry.kind) != _folder(entry.stat.path)


__all__ = ["MIN_PARALLEL_FILES", "ColdBuild", "built_tables", "cold_build", "serial_build"]
