"""Import commands: ``benchledger import FORMAT PATH…`` and ``benchledger ingest-table SOURCE_ID``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from benchledger.cli.options import LedgerOption, console

if TYPE_CHECKING:
    from benchledger.importers.common import ImportOptions
    from benchledger.importers.plan import WriteOutcome

FORMAT_HELP = ("vllm-bench | benchledger-run | aiperf | guidellm | mlperf | autobench | inference-research | "
               "mlperf-results (a stored git snapshot of an inference_results_vX.Y repository; DIR@COMMIT pins a commit) | "
               "llama-bench-tables (a stored git snapshot whose Markdown holds | GPU | Model | tg N | pp N | or | System | … | Eval Rate | tables) | "
               "device-speed-tables (a stored git snapshot whose Markdown holds | Device | Speed (tokens/sec) | tables) | "
               "device-count-tables (a stored git snapshot whose Markdown holds | Model | N x <device> | tables)")
_STYLE = {"written": "green", "would-write": "cyan", "unchanged": "dim", "kept": "yellow"}


def register(app: typer.Typer) -> None:
    app.command("import")(import_cmd)
    app.command("ingest-table")(ingest_table_cmd)


def _options(source: str | None, id_prefix: str | None, model: str | None, engine: str | None,
             accelerator: str | None) -> ImportOptions:
    from benchledger.importers.common import ImportOptions

    return ImportOptions(source=source, id_prefix=id_prefix, model=model, engine=engine, accelerator=accelerator)


def _render(outcomes: list[WriteOutcome], dry_run: bool) -> None:
    out = console()
    for o in outcomes:
        style = _STYLE.get(o.status, "")
        out.print(f"[{style}]{o.status:11}[/{style}] {o.kind:11} {o.record_id}  {o.path}")
    if dry_run:
        out.print("dry run: nothing was written")
    elif any(o.status == "kept" for o in outcomes):
        out.print("kept: a record with that id exists and differs (edited since?); it was not overwritten")


def import_cmd(
    fmt: str = typer.Argument(..., metavar="FORMAT", help=FORMAT_HELP),
    paths: list[Path] = typer.Argument(..., metavar="PATH...", help="Files to import (aiperf: file or folder)."),
    ledger: Path | None = LedgerOption,
    source: str | None = typer.Option(None, "--source", help="Cite this existing source record (quoted formats) "
                                      "or list it in the record's sources (measured formats)."),
    id_prefix: str | None = typer.Option(None, "--id-prefix", help="Id prefix; the input's sha256 is appended."),
    model: str | None = typer.Option(None, "--model", help="Model id of the ledger to use as the subject."),
    engine: str | None = typer.Option(None, "--engine", help="Engine id of the ledger to use as the subject."),
    accelerator: str | None = typer.Option(None, "--accelerator", help="Accelerator id of the ledger."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Build and check everything, write nothing."),
) -> None:
    """Import benchmark results of another tool or a public record set as draft records."""
    from benchledger.importers import FORMATS, SNAPSHOT_FORMATS, import_files

    if fmt not in FORMATS and fmt not in SNAPSHOT_FORMATS:
        raise typer.BadParameter(f"unknown format {fmt!r}; expected one of {', '.join([*FORMATS, *SNAPSHOT_FORMATS])}",
                                 param_hint="FORMAT")
    outcomes = import_files(fmt, paths, ledger, _options(source, id_prefix, model, engine, accelerator),
                            dry_run=dry_run)
    _render(outcomes, dry_run)


def ingest_table_cmd(
    source_id: str = typer.Argument(..., metavar="SOURCE_ID", help="Source record whose excerpt holds the table."),
    table: int = typer.Option(1, "--table", help="Which Markdown table of the excerpt (1-based)."),
    ledger: Path | None = LedgerOption,
    id_prefix: str | None = typer.Option(None, "--id-prefix", help="Id prefix; a hash is appended."),
    model: str | None = typer.Option(None, "--model", help="Model id of the ledger to use as the subject."),
    engine: str | None = typer.Option(None, "--engine", help="Engine id of the ledger to use as the subject."),
    accelerator: str | None = typer.Option(None, "--accelerator", help="Accelerator id of the ledger."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Build and check everything, write nothing."),
) -> None:
    """Turn a Markdown table of a source's stored excerpt into draft arms, every number quoted with its row."""
    from benchledger.importers import ingest_source_table

    outcomes = ingest_source_table(source_id, table, ledger, _options(None, id_prefix, model, engine, accelerator),
                                   dry_run=dry_run)
    _render(outcomes, dry_run)


__all__ = ["register"]
