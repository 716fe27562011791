"""Export every public view of an index as CSV, JSON or Parquet files (one file per view), via DuckDB ``COPY``.

The output path reaches DuckDB as a query parameter and view names as quoted identifiers: nothing from the
command line becomes SQL text. Rows are ordered by every column, on one thread, so the same index gives the
same bytes. Each file is written whole or not at all (a temporary file, then renamed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from benchledger.errors import LedgerError
from benchledger.ledger.duckdb_engine import duckdb
from benchledger.ledger.sql import public_views, quote_identifier

ExportFormat = Literal["csv", "json", "parquet"]
_COPY_OPTIONS = {"csv": "FORMAT csv, HEADER true", "json": "FORMAT json, ARRAY true", "parquet": "FORMAT parquet"}


def export_views(con: duckdb.DuckDBPyConnection, out_dir: Path | str, fmt: ExportFormat,
                 views: tuple[str, ...] | None = None) -> list[Path]:
    """Write each view (every public view when None) to ``out_dir/<view>.<fmt>``; returns the paths."""
    if fmt not in _COPY_OPTIONS:
        raise LedgerError(f"unknown export format {fmt!r}; expected csv, json or parquet")
    available = public_views(con)
    chosen = available if views is None else list(views)
    missing = [v for v in chosen if v not in available]
    if missing:
        raise LedgerError(f"no view {', '.join(missing)} in the index (views: {', '.join(available)})")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    threads = con.execute("SELECT current_setting('threads')").fetchone()
    con.execute("SET threads = 1")
    written: list[Path] = []
    try:
        for view in chosen:
            target = out / f"{view}.{fmt}"
            tmp = out / f".{view}.{fmt}.tmp"
            name = quote_identifier(view)
            width = len(con.execute(f"SELECT * FROM {name} LIMIT 0").description)
            order = ", ".join(str(i + 1) for i in range(width))
            try:
                con.execute(f"COPY (SELECT * FROM {name} ORDER BY {order}) TO ? ({_COPY_OPTIONS[fmt]})", [str(tmp)])
                tmp.replace(target)
            except BaseException as exc:
                tmp.unlink(missing_ok=True)
                if isinstance(exc, duckdb.IOException):  # (a full disk, a quota: the machine's, said in one line)
                    raise LedgerError(f"could not write {target} ({len(written)} of {len(chosen)} views written): "
                                      f"{(str(exc).splitlines() or ['I/O error'])[0]}") from exc
                raise
            written.append(target)
    finally:
        if threads:
            con.execute(f"SET threads = {int(threads[0])}")
    return written


__all__ = ["ExportFormat", "export_views"]
