"""The ledger as downloads: CSV and Parquet tables written by DuckDB ``COPY … TO``, plus the records as JSON.

Paths reach DuckDB as query parameters. Every table is copied with an explicit ``ORDER BY`` on one thread so the bytes are the same on every build.
Tables whose rows hold lists (e.g. ``sources``) are written to CSV with the list as JSON text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from benchledger.ledger.duckdb_engine import duckdb
from benchledger.ledger.sql import quote_identifier
from benchledger.ledger.store import Ledger

EXPORT_TABLES: dict[str, tuple[str, str]] = {
    "benchmarks": ("id", "one row per experiment (record-level subject and workload)"),
    "arms": ("record_id, arm", "one row per arm, with effective conditions and acceptance"),
    "results": ("record_id, arm, metric, stat, value", "one row per reported number, with quote and provenance"),
    "comparisons": ("record_id, arm, metric, stat, unit", "derived speedups of each arm vs its baseline arm"),
    "spec_outcomes": ("record_id, arm, metric, stat, unit",
                      "each speculative arm vs its baseline on the speed metrics: benefit, harm or no clear change"),
    "conditions": ("record_id, arm, condition", "every audited condition per arm: known / unknown + reason"),
    "findings": ("record, code, field, message", "audit findings"),
    "sources": ("id", "source documents with their stored excerpts"),
}


@dataclass(frozen=True)
class Download:
    """A downloadable file: link (relative to the site root), name and what it holds."""

    href: str
    name: str
    what: str


def write_downloads(con: duckdb.DuckDBPyConnection, ledger: Ledger, out: Path) -> list[Download]:
    """Write ``downloads/`` under ``out``; return the links for the index page."""
    folder = out / "downloads"
    folder.mkdir(parents=True, exist_ok=True)
    records = [record.model_dump(mode="json", exclude_none=True) for record in ledger]
    json_text = json.dumps({"records": records}, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    (folder / "ledger.json").write_text(json_text + "\n", encoding="utf-8")
    links = [Download("downloads/ledger.json", "ledger.json", f"all {len(records)} records as validated JSON")]
    threads = con.execute("SELECT current_setting('threads')").fetchone()
    con.execute("SET threads = 1")
    try:
        for table, (order, what) in EXPORT_TABLES.items():
            select = f"SELECT * FROM {quote_identifier(table)} ORDER BY {order}"
            csv_path = folder / f"{table}.csv"
            pq_path = folder / f"{table}.parquet"
            con.execute(f"COPY ({_csv_select(con, table, order)}) TO ? (FORMAT csv, HEADER)", [str(csv_path)])
            con.execute(f"COPY ({select}) TO ? (FORMAT parquet, COMPRESSION zstd)", [str(pq_path)])
            links.append(Download(f"downloads/{table}.csv", f"{table}.csv", what))
            links.append(Download(f"downloads/{table}.parquet", f"{table}.parquet", what))
    finally:
        if threads:
            con.execute(f"SET threads = {int(threads[0])}")
    return links


def _csv_select(con: duckdb.DuckDBPyConnection, table: str, order: str) -> str:
    """``SELECT`` with list columns turned into JSON text (CSV has no list type)."""
    cursor = con.execute(f"SELECT * FROM {quote_identifier(table)} LIMIT 0")
    columns = []
    for name, type_code, *_ in cursor.description:
        quoted = quote_identifier(str(name))
        if str(type_code).endswith("[]") or "LIST" in str(type_code).upper():
            columns.append(f"to_json({quoted}) AS {quoted}")
        else:
            columns.append(quoted)
    return f"SELECT {', '.join(columns)} FROM {quote_identifier(table)} ORDER BY {order}"


__all__ = ["EXPORT_TABLES", "Download", "write_downloads"]
