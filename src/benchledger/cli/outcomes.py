"""``benchledger outcomes``: where speculative decoding helped most and hurt most (from ``spec_outcomes``)."""

from __future__ import annotations

from pathlib import Path

import typer

from benchledger.cli.options import LedgerOption, console, load
from benchledger.cli.render import print_table

ALL_QUERY = ('benchledger query "SELECT record_id, arm, accelerator, engine, input_tokens AS ctx, concurrency AS '
             "conc, metric, round(speedup, 3) AS speedup, outcome FROM spec_outcomes ORDER BY speedup\"")


def register(app: typer.Typer) -> None:
    app.command("outcomes")(outcomes)


def outcomes(
    top: int = typer.Option(5, "--top", "-n", min=1, help="Rows in each of the two tables."),
    ledger: Path | None = LedgerOption,
) -> None:
    """The speculative arms that helped most and hurt most: one decode-speed speedup per arm, with context and
    concurrency."""
    from benchledger.catalog.build import build_catalog
    from benchledger.catalog.outcomes import telling_outcomes

    found = telling_outcomes(build_catalog(load(ledger)), top)
    out = console()
    counts = ", ".join(f"{n} {name}" for name, n in sorted(found["counts"].items()))
    out.print(f"speculative decoding in {found['arms']} arms (decode speed vs each arm's own baseline): {counts}",
              highlight=False, markup=False)
    print_table(out, found["columns"], found["helped"], title=f"helped most (top {top})")
    print_table(out, found["columns"], found["hurt"], title=f"hurt most (top {top})")
    out.print(f"every outcome: {ALL_QUERY}", highlight=False, markup=False)


__all__ = ["register"]
