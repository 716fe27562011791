"""The ledger's own DuckDB index: its tables (one row set per record), its views, and how tables are loaded.

Mechanism only: record files → rows (``rows.py``) → tables, then the SQL views in ``views/*.sql``. The full
index that also holds the physics model's tables and the audit's findings is built one layer up
(``benchledger.catalog``). Rows reach DuckDB as a JSON array of row objects in a file, read through ``read_json``
with the file path as a parameter (a row of any size loads: ``insert_files``). See ``docs/index.md``.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from benchledger.errors import LedgerError
from benchledger.ledger import rows
from benchledger.ledger.duckdb_engine import duckdb
from benchledger.ledger.rowjson import encode_rows
from benchledger.ledger.sql import public_views, query, quote_identifier
from benchledger.ledger.store import Ledger
from benchledger.schema.metrics import OUTCOME_BAND

Columns = dict[str, str]
TableSpec = tuple[Columns, Callable[[Ledger], Iterable[rows.Row]]]

TABLES: dict[str, TableSpec] = {
    "t_records": ({"id": "VARCHAR", "kind": "VARCHAR", "title": "VARCHAR", "status": "VARCHAR", "path": "VARCHAR",
                   "sources": "VARCHAR[]", "history_entries": "INTEGER", "body": "VARCHAR"}, rows.record_rows),
    "t_sources": ({"id": "VARCHAR", "title": "VARCHAR", "url": "VARCHAR", "source_type": "VARCHAR",
                   "publisher": "VARCHAR", "published": "DATE", "retrieved": "DATE", "sha256": "VARCHAR",
                   "excerpt": "VARCHAR"}, rows.source_rows),
    "t_benchmarks": ({"id": "VARCHAR", "title": "VARCHAR", "status": "VARCHAR", "measured_by": "VARCHAR",
                      "model": "VARCHAR", "engine": "VARCHAR", "engine_version": "VARCHAR", "accelerator": "VARCHAR",
                      "accelerator_count": "DOUBLE", "weights": "VARCHAR", "kv_cache": "VARCHAR",
                      "scenario": "VARCHAR", "tp": "DOUBLE", "arms": "INTEGER", "sources": "VARCHAR[]",
                      "contests": "VARCHAR[]"}, rows.benchmark_rows),
    "t_arms": ({"record_id": "VARCHAR", "arm": "VARCHAR", "baseline": "VARCHAR", "spec_method": "VARCHAR",
                "spec_k": "DOUBLE", "model": "VARCHAR", "engine": "VARCHAR", "engine_version": "VARCHAR",
                "accelerator": "VARCHAR", "accelerator_count": "DOUBLE", "weights": "VARCHAR",
                "kv_cache": "VARCHAR", "tp": "DOUBLE", "scenario": "VARCHAR", "input_tokens": "DOUBLE",
                "output_tokens": "DOUBLE", "concurrency": "DOUBLE", "batch_size": "DOUBLE",
                "request_rate": "DOUBLE", "acceptance_rate": "DOUBLE", "acceptance_length": "DOUBLE",
                "acceptance_per_position": "DOUBLE[]", "acceptance_definition": "VARCHAR", "note": "VARCHAR"},
               rows.arm_rows),
    "t_results": ({"record_id": "VARCHAR", "arm": "VARCHAR", "metric": "VARCHAR", "stat": "VARCHAR",
                   "value": "DOUBLE", "unit": "VARCHAR", "value_canonical": "DOUBLE", "unit_canonical": "VARCHAR",
                   "provenance": "VARCHAR", "source_id": "VARCHAR", "quote": "VARCHAR", "run": "VARCHAR",
                   "sha256": "VARCHAR", "formula": "VARCHAR", "definition": "VARCHAR", "note": "VARCHAR"},
                  rows.result_rows),
    "t_quoted_changes": ({"record_id": "VARCHAR", "arm": "VARCHAR", "metric": "VARCHAR", "stat": "VARCHAR",
                          "percent": "DOUBLE", "quote": "VARCHAR"}, rows.quoted_change_rows),
    "t_conditions": ({"record_id": "VARCHAR", "arm": "VARCHAR", "condition": "VARCHAR", "status": "VARCHAR",
                      "value": "VARCHAR", "reason": "VARCHAR", "note": "VARCHAR", "quote": "VARCHAR"},
                     rows.condition_rows),
    "t_accelerators": ({"id": "VARCHAR", "name": "VARCHAR", "vendor": "VARCHAR", "architecture": "VARCHAR",
                        "memory_gb": "DOUBLE", "memory_bandwidth_gbs": "DOUBLE", "tdp_w": "DOUBLE",
                        "unified_memory": "BOOLEAN", "interconnects": "VARCHAR[]", "bf16_tflops": "DOUBLE",
                        "fp8_tflops": "DOUBLE", "fp4_tflops": "DOUBLE", "int8_tops": "DOUBLE"},
                       rows.accelerator_rows),
    "t_models": ({"id": "VARCHAR", "name": "VARCHAR", "hf_id": "VARCHAR", "attention": "VARCHAR",
                  "params_total_b": "DOUBLE", "params_active_b": "DOUBLE", "hidden_size": "DOUBLE",
                  "layers_full_attention": "DOUBLE", "layers_sliding": "DOUBLE", "layers_linear": "DOUBLE",
                  "num_heads": "DOUBLE", "num_kv_heads": "DOUBLE", "head_dim": "DOUBLE", "vocab_size": "DOUBLE",
                  "experts_total": "DOUBLE", "experts_active": "DOUBLE", "mtp_layers": "DOUBLE"}, rows.model_rows),
    "t_formats": ({"id": "VARCHAR", "name": "VARCHAR", "applies_to": "VARCHAR[]", "bits_per_element": "DOUBLE",
                   "bytes_per_param": "DOUBLE", "block_size": "INTEGER"}, rows.format_rows),
    "t_engines": ({"id": "VARCHAR", "name": "VARCHAR", "repo": "VARCHAR", "features": "VARCHAR[]"},
                  rows.engine_rows),
    "t_engine_claims": ({"engine_id": "VARCHAR", "feature": "VARCHAR", "methods": "VARCHAR[]", "quote": "VARCHAR"},
                        rows.engine_claim_rows),
    "t_metrics": ({"metric": "VARCHAR", "higher_is_better": "BOOLEAN", "unit": "VARCHAR", "definition": "VARCHAR"},
                  lambda _ledger: rows.metric_rows()),
}
RECORD_KEYS: dict[str, str] = {
    "t_records": "id", "t_sources": "id", "t_benchmarks": "id", "t_arms": "record_id", "t_results": "record_id",
    "t_quoted_changes": "record_id", "t_conditions": "record_id", "t_accelerators": "id", "t_models": "id",
    "t_formats": "id", "t_engines": "id", "t_engine_claims": "engine_id",
}
"""The column of each per-record table that holds the record id (``t_metrics`` is the same for every ledger)."""


def build_index(ledger: Ledger, path: Path | str | None = None) -> duckdb.DuckDBPyConnection:
    """The ledger's tables and views only, in a DuckDB file (or in memory when ``path`` is None)."""
    con = connect_fresh(path)
    for name, (columns, producer) in TABLES.items():
        create_table(con, name, columns)
        insert_rows(con, name, columns, producer(ledger))
    create_views(con, view_sql("benchledger.ledger"))
    return con


def connect_fresh(path: Path | str | None) -> duckdb.DuckDBPyConnection:
    """A connection to a new, empty database (an existing file at ``path`` is replaced)."""
    if path is None:
        return duckdb.connect(":memory:")
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    Path(f"{target}.wal").unlink(missing_ok=True)
    return duckdb.connect(str(target))


def create_table(con: duckdb.DuckDBPyConnection, name: str, columns: Columns) -> None:
    """An empty table with these columns (names quoted; types are the fixed DuckDB names above)."""
    cols = ", ".join(f"{quote_identifier(c)} {_type(t)}" for c, t in columns.items())
    con.execute(f"CREATE TABLE {quote_identifier(name)} ({cols})")


def insert_rows(con: duckdb.DuckDBPyConnection, name: str, columns: Columns, data: Iterable[rows.Row]) -> int:
    """Append rows to a table; returns how many (through a file, ``write_rows`` and ``insert_files``).

    Keys that are not columns are ignored and missing ones are NULL (``read_json`` with ``columns``).
    """
    with tempfile.TemporaryDirectory(prefix="benchledger-rows-") as tmp:
        written = write_rows(Path(tmp) / "rows.json", data)
        insert_files(con, name, columns, [written])
    return written.rows


@dataclass(frozen=True)
class RowsFile:
    """Rows written by ``write_rows``: the file (absent when there are none), how many, its size in bytes (no
    row is longer)."""

    path: Path
    rows: int
    size: int


def write_rows(path: Path, data: Iterable[rows.Row]) -> RowsFile:
    """Write rows to ``path`` as one JSON array of row objects (nothing when there are none).

    One encoder call for them all (``rowjson.encode_rows``): encoding row by row costs a Python call per row.
    """
    listed = data if isinstance(data, list) else list(data)
    if not listed:
        return RowsFile(path, 0, 0)
    blob = encode_rows(listed)
    path.write_bytes(blob)
    return RowsFile(path, len(listed), len(blob))


def insert_files(con: duckdb.DuckDBPyConnection, name: str, columns: Columns, files: Iterable[RowsFile]) -> int:
    """Append the rows of these files to a table, in one ``read_json`` over them all; returns how many.

    DuckDB reads each row object on its own, up to ``maximum_object_size`` bytes: that limit is set from the
    largest file, so a row of any size loads (a record of tens of MB, tests/integration/test_index.py).
    """
    chosen = [f for f in files if f.rows]
    if not chosen:
        return 0
    largest = max(f.size for f in chosen) + 1
    spec = "{" + ", ".join(f"{_literal(c)}: {_literal(_type(t))}" for c, t in columns.items()) + "}"
    select = ", ".join(quote_identifier(c) for c in columns)
    con.execute(
        f"INSERT INTO {quote_identifier(name)} SELECT {select} FROM read_json(?::VARCHAR[], format='array', "
        f"columns={spec}, maximum_object_size=?)",
        [[str(f.path) for f in chosen], max(largest, 1 << 20)],
    )
    return sum(f.rows for f in chosen)


def view_sql(package: str) -> list[str]:
    """The ``views/*.sql`` files of a package, in name order."""
    folder = resources.files(package) / "views"
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".sql"))
    return [(folder / n).read_text(encoding="utf-8") for n in names]


def create_views(con: duckdb.DuckDBPyConnection, scripts: Iterable[str]) -> None:
    """The views, after the macros they use: ``outcome_band()`` is ``schema.metrics.OUTCOME_BAND``."""
    con.execute(f"CREATE OR REPLACE MACRO outcome_band() AS CAST({OUTCOME_BAND!r} AS DOUBLE)")
    for sql in scripts:
        con.execute(sql)


_TYPES = frozenset({"VARCHAR", "VARCHAR[]", "DOUBLE", "DOUBLE[]", "INTEGER", "BIGINT", "BOOLEAN", "DATE"})


def _type(name: str) -> str:
    if name not in _TYPES:
        raise LedgerError(f"column type {name!r} is not one the index uses ({', '.join(sorted(_TYPES))})")
    return name


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


__all__ = [
    "RECORD_KEYS",
    "TABLES",
    "Columns",
    "RowsFile",
    "TableSpec",
    "build_index",
    "connect_fresh",
    "create_table",
    "create_views",
    "insert_files",
    "insert_rows",
    "public_views",
    "query",
    "quote_identifier",
    "view_sql",
    "write_rows",
]
