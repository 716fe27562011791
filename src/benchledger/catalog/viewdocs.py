"""The reference page of the index views (``docs/index.md``), generated from the views themselves.

``python -m benchledger.catalog.viewdocs`` rewrites the page; a test fails when it is stale or a view lacks a
description.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from benchledger.ledger.duckdb_engine import duckdb
from benchledger.ledger.sql import quote_identifier

DOCS_PATH = Path(__file__).resolve().parents[3] / "docs" / "index.md"
INTRO = (
    "# The DuckDB index\n\n"
    "`benchledger query`, `show`, `export`, `coverage` and the site read a DuckDB database built from the record "
    "files (never committed). The CLI keeps it in `<ledger>/.benchledger-cache/` and brings it up to date when "
    "files change (`--no-cache` builds a fresh one in memory; `query --db FILE` builds one into FILE). A cache "
    "built from scratch with 1,000 benchmark files or more is built by worker processes side by side "
    "(`$BENCHLEDGER_JOBS`, default the CPUs the command may use; `BENCHLEDGER_JOBS=1`: one process), with the "
    "same result (`src/benchledger/catalog/cold.py`). Tables "
    "`t_*` are loaded from the files; the views below are the public surface. SQL of the views: "
    "`src/benchledger/ledger/views/*.sql` (the ledger's own) and `src/benchledger/catalog/views/*.sql` (over the "
    "audit's findings and the physics model's efficiency).\n"
)
DESCRIPTIONS: dict[str, str] = {
    'efficiency': (
        'Derived by the physics model: each throughput/TPOT result against the physical ceiling of its hardware × count × format × model at its context (η = 1, no overhead): `ceiling` and its name (`bound`: aggregate bound, per-stream bound, TPOT floor), `efficiency_pct` (NULL with `efficiency_note` n/a (concurrency unknown) when the only bound is the aggregate bound from compute alone), the `limiting` side and the `basis` of the ceiling. Speculative arms get the ceiling of k+1 tokens per step.'
    ),
    'accelerators': (
        'Accelerator reference data (known numbers only; unknowns are NULL — the record says why).'
    ),
    'arms': (
        "One row per arm with its effective conditions (record level + the arm's overrides) and acceptance (rate as a fraction, mean length incl. the bonus token, per-position survival rates, definition)."
    ),
    'benchmarks': (
        'One row per benchmark experiment (record level subject and workload).'
    ),
    'comparisons': (
        'Derived: each arm that names a baseline arm, per (metric, stat) both report, in canonical units. `ratio` = arm / baseline, `percent_change` = (ratio − 1)·100, `speedup` = ratio for higher-is-better metrics and 1 / ratio for latencies, so speedup > 1 always means the arm is better.'
    ),
    'conditions': (
        'One row per audited condition per arm: `status` known / unknown / absent, the value or the unknown `reason` (source_omits, unchecked) with its note, and the quote that states it.'
    ),
    'engine_claims': (
        'Features each engine claims (with the quote that claims it).'
    ),
    'engine_evidence': (
        "Derived: each engine's claimed speculative methods next to the number of arms where speculation helped, hurt or made no clear change on it. Support is not benefit."
    ),
    'engines': (
        'Engines and the features they claim.'
    ),
    'findings': (
        "The audit's findings for the indexed ledger (code, severity, record, field, message, waived, waiver reason)."
    ),
    'formats': (
        'Weight / KV formats with bytes per parameter including scales.'
    ),
    'metrics': (
        'The metric vocabulary: name, direction, canonical unit, definition.'
    ),
    'models': (
        'Model architecture reference data.'
    ),
    'quoted_changes': (
        'Percent changes as the sources print them (checked by the audit against `comparisons`).'
    ),
    'records': (
        'Every record of every kind: id, kind, title, status, file path, cited sources, number of history entries, body.'
    ),
    'results': (
        'Every reported number of every arm: metric, statistic, value and unit as recorded, the value in canonical units (ms, GB), provenance and its evidence (source + quote, run + sha256, or formula).'
    ),
    'sources': (
        'Source records: where quoted numbers come from. `excerpt` is the stored verbatim text quotes are checked against; `sha256` its hash.'
    ),
    'spec_outcomes': (
        'Derived: speculative arms against their baselines on speed metrics (output/per-stream throughput, TPOT, E2E latency), with the setup and `outcome` benefit (> +2 %), harm (< −2 %) or no clear change.'
    ),
}


def render_index_docs(con: duckdb.DuckDBPyConnection) -> str:
    """Markdown for every public view: its description and its columns with types."""
    views = [r[0] for r in con.execute(
        "SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY view_name").fetchall()]
    parts = [INTRO]
    for view in views:
        description = DESCRIPTIONS.get(view, "UNDOCUMENTED: add a description in benchledger.catalog.viewdocs")
        rows = con.execute(f"DESCRIBE {quote_identifier(view)}").fetchall()
        parts.append(f"\n## `{view}`\n\n{description}\n\n| column | type |\n|---|---|\n")
        parts.extend(f"| `{r[0]}` | {r[1]} |\n" for r in rows)
    return "".join(parts)


def render_for_empty_ledger() -> str:
    """The page as built from an empty ledger (column types do not depend on data)."""
    from benchledger.catalog.build import build_catalog
    from benchledger.ledger.store import Ledger

    with tempfile.TemporaryDirectory() as tmp:
        return render_index_docs(build_catalog(Ledger.load(tmp), findings=[]))


if __name__ == "__main__":
    DOCS_PATH.write_text(render_for_empty_ledger(), encoding="utf-8")
    sys.stdout.write(f"wrote {DOCS_PATH}\n")
