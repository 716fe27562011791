"""Export the index's public views as CSV, JSON or Parquet files (one file per view), via DuckDB ``COPY``."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import duckdb

from benchledger.errors import LedgerError

ExportFormat = Literal["csv", "json", "parquet"]
EXPORT_VIEWS: tuple[str, ...] = (
    "records", "sources", "benchmarks", "arms", "results", "conditions", "comparisons", "quoted_changes",
    "accelerators", "models", "formats", "engines", "engine_claims", "findings",
)
_COPY_OPTIONS = {"csv": "FORMAT csv, HEADER true", "json": "FORMAT json, ARRAY true", "parquet": "FORMAT parquet"}


def export_views(con: duckdb.DuckDBPyConnection, out_dir: Path | str, fmt: ExportFormat,
                 views: tuple[str, ...] = EXPORT_VIEWS) -> list[Path]:
    """Write each view to ``out_dir/<view>.<fmt>``, rows ordered deterministically; returns the paths."""
    if fmt not in _COPY_OPTIONS:
        raise LedgerError(f"unknown export format {fmt!r}; expected csv, json or parquet")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    available = {row[0] for row in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    written: list[Path] = []
    for view in views:
        if view not in available:
            continue
        target = out / f"{view}.{fmt}"
        tmp = out / f".{view}.{fmt}.tmp"
        order = ", ".join(str(i + 1) for i in range(len(con.execute(f"SELECT * FROM {view} LIMIT 0").description)))
        con.execute(f"COPY (SELECT * FROM {view} ORDER BY {order}) TO '{tmp}' ({_COPY_OPTIONS[fmt]})")
        tmp.replace(target)
        written.append(target)
    return written


__all__ = ["EXPORT_VIEWS", "ExportFormat", "export_views"]
