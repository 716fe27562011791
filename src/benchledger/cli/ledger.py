"""Ledger commands: init, fmt, audit, query, show, export."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from benchledger.cli.options import LedgerOption, console, load
from benchledger.cli.render import SEVERITY_STYLE, csv_text, json_text, table


class QueryFormat(StrEnum):
    table = "table"
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
    """Rewrite every record file in canonical form (load → dump is then byte-identical)."""
    from benchledger.ledger.io import atomic_write_text, dump_record

    led = load(ledger, strict=True)
    changed = []
    for record in led:
        path = led.paths[record.id]
        text = dump_record(record)
        if path.read_text(encoding="utf-8") != text:
            changed.append(path)
            if not check:
                atomic_write_text(path, text)
    verb = "not canonical" if check else "rewritten"
    for path in changed:
        console().print(f"{verb}: {path}")
    console().print(f"{len(changed)} of {len(led)} files {verb}")
    if check and changed:
        raise typer.Exit(1)


NoCacheOption = typer.Option(False, "--no-cache", help="Build a fresh index in memory; leave the cache alone.")


def _index(ledger: Path | None, no_cache: bool, *, full: bool = False):  # type: ignore[no-untyped-def]
    from benchledger.catalog.cache import open_index

    return open_index(ledger, cache=not no_cache, rebuild=full)


def audit(
    ledger: Path | None = LedgerOption,
    as_json: bool = typer.Option(False, "--json", help="Machine-readable report."),
    only: list[str] = typer.Option([], "--only", help="Run only these check families or names."),
    show_info: bool = typer.Option(False, "--info", help="Also list info-level findings."),
    full: bool = typer.Option(False, "--full", help="Re-run every check on every file (and rebuild the cache)."),
    no_cache: bool = NoCacheOption,
) -> None:
    """Run the audit checks (only for files changed since the cached run); exit 1 on any unwaived error."""
    if only:
        from benchledger.audit import run_audit

        report = run_audit(load(ledger), only=set(only))
    else:
        report = _index(ledger, no_cache, full=full).report()
    if as_json:
        typer.echo(report.to_json())
        raise typer.Exit(report.exit_code)
    out = console()
    shown = [f for f in report.findings if show_info or f.severity != "info"]
    if shown:
        rows = [(f"[{SEVERITY_STYLE[f.severity]}]{f.severity}{' (waived)' if f.waived else ''}[/]", f.code,
                 f.record, f.field, f.message) for f in shown]
        out.print(table(["severity", "code", "record", "field", "message"], rows))
    counts = report.counts()
    out.print(f"{report.records_checked} records: {counts['error']} errors, {counts['warning']} warnings, "
              f"{counts['info']} info, {counts['waived']} waived")
    raise typer.Exit(report.exit_code)


def query(
    sql: str = typer.Argument(..., help="SQL over the index views (records, benchmarks, arms, results, …)."),
    ledger: Path | None = LedgerOption,
    output: QueryFormat = typer.Option(QueryFormat.table, "--format", "-f"),
    db: Path | None = typer.Option(None, "--db", help="Build a fresh index into this DuckDB file and keep it."),
    no_cache: bool = NoCacheOption,
) -> None:
    """Run SQL against the index of the ledger (kept up to date in <ledger>/.benchledger-cache/)."""
    from benchledger.ledger.sql import query as run_query

    if db is not None:
        from benchledger.catalog.build import build_catalog

        con = build_catalog(load(ledger), db)
    else:
        con = _index(ledger, no_cache).con
    columns, rows = run_query(con, sql)
    if output is QueryFormat.csv:
        typer.echo(csv_text(columns, rows), nl=False)
    elif output is QueryFormat.json:
        typer.echo(json_text(columns, rows))
    else:
        console().print(table(columns, rows))


def show(
    record_id: str = typer.Argument(..., help="Record id."),
    ledger: Path | None = LedgerOption,
    no_cache: bool = NoCacheOption,
) -> None:
    """Show one record: its file, derived comparisons, conditions and audit findings."""
    from benchledger.catalog.lookup import load_indexed_record
    from benchledger.ledger.io import dump_record

    index = _index(ledger, no_cache)
    con = index.con
    record, path = load_indexed_record(index, record_id)
    out = console()
    out.print(f"[bold]{record.title}[/]  ({record.kind}, {path})")
    out.print(dump_record(record), markup=False)
    if record.kind == "benchmark":
        for title, sql in _SHOW_QUERIES.items():
            cur = con.execute(sql, [record_id])
            rows = cur.fetchall()
            if rows:
                out.print(table([d[0] for d in cur.description], rows, title=title))
    cur = con.execute("SELECT severity, code, field, message, waived FROM findings WHERE record = ? "
                      "ORDER BY severity, code", [record_id])
    rows = cur.fetchall()
    out.print(table([d[0] for d in cur.description], rows, title="audit findings") if rows else "no audit findings")


_SHOW_QUERIES = {
    "derived comparisons (arm vs its baseline)": (
        "SELECT arm, baseline_arm, metric, stat, baseline_value, arm_value, unit, round(speedup, 4) AS speedup, "
        "round(percent_change, 2) AS percent_change FROM comparisons WHERE record_id = ? ORDER BY arm, metric, stat"),
    "efficiency (result vs physical ceiling)": (
        "SELECT arm, metric, stat, value, unit, round(ceiling, 3) AS ceiling, ceiling_unit, "
        "round(efficiency_pct, 1) AS efficiency_pct, limiting FROM efficiency WHERE record_id = ? "
        "ORDER BY arm, metric, stat"),
    "conditions (per arm)": (
        "SELECT condition, list(DISTINCT coalesce(value, 'unknown: ' || reason) ORDER BY coalesce(value, "
        "'unknown: ' || reason)) AS values FROM conditions WHERE record_id = ? GROUP BY condition ORDER BY condition"),
}


def export(
    output_format: ExportFormat = typer.Option(..., "--format", "-f"),
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
