"""The DuckDB index: built from the record files (never committed), queried with SQL.

Tables are loaded in bulk (rows → newline-delimited JSON → ``read_json``), then the documented views in
``views/*.sql`` are created over them. See ``docs/index.md`` for every view and column.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Callable, Iterable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb

from benchledger.errors import LedgerError
from benchledger.ledger import rows
from benchledger.ledger.store import Ledger, gc_paused

Columns = dict[str, str]

TABLES: dict[str, tuple[Columns, Callable[[Ledger], Iterator[rows.Row]]]] = {
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
FINDING_COLUMNS: Columns = {"code": "VARCHAR", "severity": "VARCHAR", "record": "VARCHAR", "field": "VARCHAR",
                            "message": "VARCHAR", "waived": "BOOLEAN", "waiver_reason": "VARCHAR"}
EXTRA_TABLES: dict[str, tuple[Columns, Callable[[Ledger], Iterable[rows.Row]]]] = {}
"""Tables other packages add to the index (e.g. the physics model's per-arm efficiency), by name."""


def build_index(
    ledger: Ledger, path: Path | str | None = None, *, findings: Iterable[rows.Row] | None = None
) -> duckdb.DuckDBPyConnection:
    """Build the index in a DuckDB file (or in memory when ``path`` is None) and return the connection.

    ``findings`` are the audit's rows; when None, the audit runs here.
    """
    if path is not None:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        Path(f"{target}.wal").unlink(missing_ok=True)
    con = duckdb.connect(str(path) if path is not None else ":memory:")
    if findings is None:
        from benchledger.audit import run_audit

        findings = [f.as_row() for f in run_audit(ledger).findings]
    with tempfile.TemporaryDirectory(prefix="benchledger-index-") as tmp, gc_paused():
        for name, (columns, producer) in {**TABLES, **_extra_tables()}.items():
            _load_table(con, Path(tmp), name, columns, producer(ledger))
        _load_table(con, Path(tmp), "t_findings", FINDING_COLUMNS, findings)
    for sql in _view_sql():
        con.execute(sql)
    return con


def _extra_tables() -> dict[str, tuple[Columns, Callable[[Ledger], Iterable[rows.Row]]]]:
    with contextlib.suppress(ImportError):  # the physics model registers its tables on import (optional)
        import benchledger.perfmodel.index_tables  # type: ignore[import-not-found,unused-ignore]  # noqa: F401
    return EXTRA_TABLES


def _load_table(con: duckdb.DuckDBPyConnection, tmp: Path, name: str, columns: Columns,
                data: Iterable[rows.Row]) -> None:
    file = tmp / f"{name}.json"
    table = [{c: row.get(c) for c in columns} for row in data]
    count = len(table)
    file.write_text(json.dumps(table, default=str), encoding="utf-8")
    cols = ", ".join(f'"{c}" {t}' for c, t in columns.items())
    if count == 0:
        con.execute(f"CREATE TABLE {name} ({cols})")
        return
    spec = "{" + ", ".join(f"'{c}': '{t}'" for c, t in columns.items()) + "}"
    con.execute(
        f"CREATE TABLE {name} AS SELECT * FROM read_json(?, format='array', columns={spec})",
        [str(file)],
    )


def _view_sql() -> list[str]:
    folder = resources.files("benchledger.ledger") / "views"
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".sql"))
    return [(folder / n).read_text(encoding="utf-8") for n in names]


def query(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Run SQL; return column names and rows. A bad query raises ``LedgerError`` with DuckDB's message."""
    try:
        cursor = con.execute(sql)
    except duckdb.Error as exc:
        raise LedgerError(f"query failed: {exc}") from None
    columns = [d[0] for d in cursor.description] if cursor.description else []
    return columns, cursor.fetchall()


__all__ = ["EXTRA_TABLES", "TABLES", "build_index", "query"]
