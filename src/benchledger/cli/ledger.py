"""Ledger commands: init, fmt, audit, query, show, export."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

import typer

from benchledger.cli.options import LedgerOption, console, load
from benchledger.cli.render import (
    SEVERITY_STYLE,
    csv_text,
    display_path,
    echo_table,
    json_text,
    tsv_text,
)


class QueryFormat(StrEnum):
    table = "table"
    tsv = "tsv"
    csv = "csv"
    json = "json"


class ExportFormat(StrEnum):
    csv = "csv"
    json = "json"
    parquet = "parquet"


def register(app: typer.Typer) -> None:
    app.command("init")(init)
    app.command("fmt")(fmt)
    app.command("audit")(audit)
    app.command("query")(query)
    app.command("show")(show)
    app.command("export")(export)
    app.command("coverage")(coverage)


def init(
    target: Path = typer.Argument(..., help="Folder to create."),
    with_reference: bool = typer.Option(False, "--with-reference", help="Copy the bundled reference records."),
) -> None:
    """Create an empty ledger folder (kind folders, waivers.yaml, runs/)."""
    from benchledger.ledger.scaffold import init_ledger

    root = init_ledger(target, with_reference=with_reference)
    console().print(f"created ledger at {root}")


def fmt(
    ledger: Path | None = LedgerOption,
    check: bool = typer.Option(False, "--check", help="Only report files not in canonical form (exit 1)."),
) -> None:
    """Rewrite every record file in canonical form (load → dump is then byte-identical); a file with YAML
    comments is refused, named (the canonical form has none: move them into a note or the body)."""
    from benchledger.ledger.canonical import apply_rewrites, plan_rewrites

    led = load(ledger, strict=True)
    rewrites = plan_rewrites(led)
    written = [] if check else apply_rewrites(rewrites)
    out = console()
    for rewrite in rewrites:
        if rewrite.refused:
            out.print(f"refused: {rewrite.path}:{rewrite.comment_line}: has YAML comments that fmt would drop; "
                      "move them into a note or the body", markup=False)
        else:
            out.print(f"{'not canonical' if check else 'rewritten'}: {rewrite.path}", markup=False)
    refused = sum(r.refused for r in rewrites)
    verb = "not canonical" if check else "rewritten"
    out.print(f"{len(rewrites) if check else len(written)} of {len(led)} files {verb}"
              + (f", {refused} refused (comments)" if refused else ""))
    if (check and rewrites) or refused:
        raise typer.Exit(1)


NoCacheOption = typer.Option(False, "--no-cache", help="Build a fresh index in memory; leave the cache alone.")


def _index(ledger: Path | None, no_cache: bool, *, full: bool = False,  # type: ignore[no-untyped-def]
           report_failures: bool = True):
    """The ledger's index; says on stderr how many files failed to load (and so are left out of every answer)."""
    from benchledger.ledger.collector import freeze_for_process, gc_paused

    with gc_paused():  # (DuckDB is imported inside the pause too: ``query`` imports it only after this)
        from benchledger.catalog.cache import open_index

        index = open_index(ledger, cache=not no_cache, rebuild=full)
        freeze_for_process()  # a CLI process is short-lived: no collection (at exit neither) rescans what it
        # loaded, not even the one the collector would start as it resumes (~40 ms after an update at 10,000)
    if index.not_kept is not None:
        console(stderr=True).print(f"warning: answered from a fresh index that could not be cached "
                                   f"({index.not_kept}); every command will build it again", markup=False)
    failed = index.load_failures() if report_failures else []
    if failed:
        console(stderr=True).print(f"warning: {len(failed)} of {index.records_checked} files failed to load and are "
                                   f"left out (first: {failed[0][1]}); `benchledger audit` lists them all",
                                   markup=False)
    return index


def audit(
    ledger: Path | None = LedgerOption,
    as_json: bool = typer.Option(False, "--json", help="Machine-readable report (every finding, waived too)."),
    only: list[str] = typer.Option([], "--only", metavar="CHECK",
                                   help="Run only this check or family (repeatable), e.g. provenance."),
    show_info: bool = typer.Option(False, "--info", help="Also list info-level findings."),
    show_waived: bool = typer.Option(False, "--show-waived", help="Also list waived findings (with the reason)."),
    summary: bool = typer.Option(False, "--summary", help="Print only the closing counts line."),
    full: bool = typer.Option(False, "--full", help="Re-run every check on every file (and rebuild the cache)."),
    no_cache: bool = NoCacheOption,
) -> None:
    """Run the audit checks (only for files changed since the cached run): one line per finding
    (path: severity code field: message), then the counts. Exit 1 on any unwaived error."""
    if only:
        from benchledger.audit import run_audit

        led = load(ledger, report_failures=False)
        report = run_audit(led, only=set(only))
        root, paths = led.root, dict(led.paths)
    else:
        index = _index(ledger, no_cache, full=full, report_failures=False)
        report = index.report()
        root = index.root
        paths = {rid: root / str(rel) for rid, rel in index.con.execute("SELECT id, path FROM records").fetchall()}
    if as_json:
        typer.echo(report.to_json())
        raise typer.Exit(report.exit_code)
    out = console()
    if not summary:
        for f in report.findings:
            if (f.severity == "info" and not show_info) or (f.waived and not show_waived):
                continue
            out.print(finding_line(f, paths.get(f.record) or root, styled=out.is_terminal), highlight=False,
                      markup=out.is_terminal)
    counts = report.counts()
    info = f"{counts['info']} info" + (" (listed with --info)" if counts["info"] and not show_info else "")
    waived = f"{counts['waived']} waived" + (" (listed with --show-waived)" if counts["waived"] and not show_waived
                                             else "")
    out.print(f"{report.records_checked} records: {counts['error']} errors, {counts['warning']} warnings, {info}, "
              f"{waived}", highlight=False, markup=False)
    raise typer.Exit(report.exit_code)


def finding_line(f: Any, path: Path, *, styled: bool = False) -> str:
    """``path:line: severity code field: message`` (like ruff and mypy); the path relative to here."""
    shown = display_path(getattr(f, "path", None) or path)
    line = getattr(f, "line", None)
    where = f"{shown}:{line}" if line else f"{shown}"
    severity = f.severity + (" (waived)" if f.waived else "")
    text = f"{f.field}: {f.message}" if f.field else f.message
    if f.waived and f.waiver_reason:
        text += f" [waived: {f.waiver_reason}]"
    if styled:
        from rich.markup import escape

        return f"{escape(where)}: [{SEVERITY_STYLE[f.severity]}]{severity}[/] {escape(f.code)} {escape(text)}"
    return f"{where}: {severity} {f.code} {text}"


def query(
    sql: str = typer.Argument(..., help="SQL over the index views (records, benchmarks, arms, results, …)."),
    ledger: Path | None = LedgerOption,
    output: QueryFormat = typer.Option(QueryFormat.table, "--format", "-f",
                                       help="table (aligned text when piped), tsv, csv or json."),
    db: Path | None = typer.Option(None, "--db", metavar="FILE",
                                   help="Build a fresh index into this DuckDB file and keep it."),
    no_cache: bool = NoCacheOption,
) -> None:
    """Run SQL against the index of the ledger (kept up to date in <ledger>/.benchledger-cache/)."""
    if db is not None:
        from benchledger.catalog.build import build_catalog

        con = build_catalog(load(ledger), db)
    else:
        con = _index(ledger, no_cache).con
    # (imported after the index: DuckDB is then imported while the GC is paused, ``_index``)
    from benchledger.ledger.sql import query as run_query

    columns, rows = run_query(con, sql)
    if output is QueryFormat.csv:
        typer.echo(csv_text(columns, rows), nl=False)
    elif output is QueryFormat.tsv:
        typer.echo(tsv_text(columns, rows), nl=False)
    elif output is QueryFormat.json:
        typer.echo(json_text(columns, rows))
    else:
        echo_table(columns, rows)


def show(
    record_id: str = typer.Argument(..., metavar="ID", help="Record id (case-insensitive when unambiguous)."),
    ledger: Path | None = LedgerOption,
    as_yaml: bool = typer.Option(False, "--yaml", help="Also print the record's full YAML."),
    no_cache: bool = NoCacheOption,
) -> None:
    """Show one record: a summary (subject, arms with headline results and speedups, findings)."""
    from benchledger.catalog.lookup import load_indexed_record, require_loaded
    from benchledger.cli.show import render_show
    from benchledger.ledger.ids import match_id

    index = _index(ledger, no_cache)
    known = dict(index.con.execute("SELECT id, kind FROM records").fetchall())
    if record_id not in known:
        require_loaded(index, record_id)
    record, path = load_indexed_record(index, match_id(known, record_id, None, index.root))
    render_show(console(), record, path, index.con, as_yaml=as_yaml)


def export(
    output_format: ExportFormat = typer.Option(..., "--format", "-f", help="File format of every view."),
    out: Path = typer.Option(..., "--out", "-o", help="Folder to write one file per view into."),
    ledger: Path | None = LedgerOption,
    no_cache: bool = NoCacheOption,
) -> None:
    """Export every index view as CSV, JSON or Parquet (one file per view)."""
    from benchledger.ledger.export import export_views

    paths = export_views(_index(ledger, no_cache).con, out, output_format.value)
    console().print(f"wrote {len(paths)} files to {out}")


def coverage(
    ledger: Path | None = LedgerOption,
    write: bool = typer.Option(False, "--write", help="Write <ledger>/README.md instead of printing."),
    no_cache: bool = NoCacheOption,
) -> None:
    """Coverage of the ledger (sources, experiments, arms, hardware, engines, unknown conditions) as Markdown."""
    from benchledger.ledger.coverage import coverage_markdown
    from benchledger.ledger.io import atomic_write_text

    index = _index(ledger, no_cache)
    text = coverage_markdown(index.con)
    if write:
        atomic_write_text(index.root / "README.md", text)
        console().print(f"wrote {index.root / 'README.md'}")
    else:
        typer.echo(text, nl=False)
