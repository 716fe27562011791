"""Importers: bring results of other tools and public records into the ledger as draft benchmark records.

``import_files(fmt, paths, ledger_root, options)`` reads every file, builds all records fully in memory, leaves
unknown (with the numbers) any stated weight format the weights cannot fit in (``weights_fit``), checks them
(schema round trip, quotes in excerpts, artifacts with their sha256) and only then writes — so a malformed
file raises ``ImportFormatError`` naming the file and key, and nothing is written. One module per format.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from benchledger.errors import LedgerError
from benchledger.importers import (
    aiperf,
    autobench,
    device_count_tables,
    device_speed_tables,
    guidellm,
    inference_research,
    llama_bench_tables,
    mlperf,
    mlperf_results,
    vllm_bench,
)
from benchledger.importers.common import ImportOptions, InputFile, read_input
from benchledger.importers.context import ImportContext
from benchledger.importers.plan import ImportPlan, WriteOutcome, apply_plan, check_plan
from benchledger.importers.references import ReferenceResolver
from benchledger.importers.tables import ingest_table
from benchledger.importers.weights_fit import refuse_unfit_weights
from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark, Source

Builder = Callable[[list[InputFile], ImportContext], None]
FORMATS: dict[str, Builder] = {
    "vllm-bench": vllm_bench.build,
    "benchledger-run": vllm_bench.build,
    "aiperf": aiperf.build,
    "guidellm": guidellm.build,
    "mlperf": mlperf.build,
    "autobench": autobench.build,
    "inference-research": inference_research.build,
}
"""Format name → builder. ``benchledger-run`` is benchledger's own ``summary.json`` (vLLM bench serve keys)."""
SnapshotBuilder = Callable[[list[Path], ImportContext], None]
SNAPSHOT_FORMATS: dict[str, SnapshotBuilder] = {"mlperf-results": mlperf_results.build_snapshots,
                                                 "llama-bench-tables": llama_bench_tables.build_snapshots,
                                                 "device-speed-tables": device_speed_tables.build_snapshots,
                                                 "device-count-tables": device_count_tables.build_snapshots}
"""Formats whose input is a stored repository snapshot (a git directory read at its commit), not files."""


def plan_import(fmt: str, paths: Sequence[Path | str], ledger: Ledger, options: ImportOptions) -> ImportPlan:
    """Build and check the whole import in memory; raises before anything is written."""
    if fmt not in FORMATS and fmt not in SNAPSHOT_FORMATS:
        raise ValueError(f"unknown import format {fmt!r}; expected one of {', '.join([*FORMATS, *SNAPSHOT_FORMATS])}")
    resolver = ReferenceResolver(dict(ledger.records), overrides={
        "model": options.model, "engine": options.engine, "accelerator": options.accelerator})
    ctx = ImportContext(options=options, resolver=resolver)
    if options.source is not None:
        ledger.get(options.source)
    if fmt in SNAPSHOT_FORMATS:
        SNAPSHOT_FORMATS[fmt]([Path(p) for p in paths], ctx)
    else:
        FORMATS[fmt]([aiperf.expand_input(Path(p)) if fmt == "aiperf" else read_input(p) for p in paths], ctx)
    ctx.plan.add(*resolver.placeholder_records())
    _refuse_unfit(ctx.plan, ledger)
    check_plan(ctx.plan, ledger.root, dict(ledger.records))
    return ctx.plan


def _refuse_unfit(plan: ImportPlan, ledger: Ledger) -> None:
    """No imported arm keeps a weight format its weights cannot fit in (``weights_fit``)."""
    references = {**ledger.records, **{r.id: r for r in plan.records}}
    refuse_unfit_weights(references, [r for r in plan.records if isinstance(r, Benchmark)])


def import_files(fmt: str, paths: Sequence[Path | str], ledger_root: Path | str | None,
                 options: ImportOptions | None = None, *, dry_run: bool = False) -> list[WriteOutcome]:
    """Import files of one format into the ledger at ``ledger_root`` (see the module docstring)."""
    ledger = Ledger.load(ledger_root)
    plan = plan_import(fmt, paths, ledger, options or ImportOptions())
    return apply_plan(plan, ledger.root, dry_run=dry_run)


def ingest_source_table(source_id: str, table_number: int, ledger_root: Path | str | None,
                        options: ImportOptions | None = None, *, dry_run: bool = False) -> list[WriteOutcome]:
    """Turn table ``table_number`` of a stored source excerpt into a draft benchmark (see ``tables``)."""
    ledger = Ledger.load(ledger_root)
    source = ledger.get(source_id)
    if not isinstance(source, Source):
        raise LedgerError(f"{source_id!r} is a {source.kind} record, not a source")
    options = options or ImportOptions()
    resolver = ReferenceResolver(dict(ledger.records), overrides={
        "model": options.model, "engine": options.engine, "accelerator": options.accelerator})
    ctx = ImportContext(options=options, resolver=resolver)
    ctx.plan.add(ingest_table(source, table_number, ctx))
    ctx.plan.add(*resolver.placeholder_records())
    _refuse_unfit(ctx.plan, ledger)
    check_plan(ctx.plan, ledger.root, dict(ledger.records))
    return apply_plan(ctx.plan, ledger.root, dry_run=dry_run)


__all__ = ["FORMATS", "SNAPSHOT_FORMATS", "ImportOptions", "WriteOutcome", "import_files", "ingest_source_table", "plan_import"]
