"""``build_catalog``: the full index of a ledger, built fresh from its records.

The ledger's own tables and views (``benchledger.ledger.index``), the physics model's ``t_efficiency`` and
the audit's ``t_findings`` (``tables.py``), then the views over them (``views/*.sql``, after the ledger's).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from benchledger.catalog.tables import EFFICIENCY_COLUMNS, FINDING_COLUMNS, efficiency_rows
from benchledger.ledger.duckdb_engine import duckdb
from benchledger.ledger.index import (
    TABLES,
    connect_fresh,
    create_table,
    create_views,
    insert_rows,
    view_sql,
)
from benchledger.ledger.rows import Row
from benchledger.ledger.store import Ledger, gc_paused

CATALOG_VIEWS = ("benchledger.ledger", "benchledger.catalog")
"""Packages whose ``views/*.sql`` make up the index, in creation order."""


def build_catalog(ledger: Ledger, path: Path | str | None = None, *,
                  findings: Iterable[Row] | None = None) -> duckdb.DuckDBPyConnection:
    """Build the full index in a DuckDB file (or in memory when ``path`` is None) and return the connection.

    ``findings`` are the audit's rows (``Finding.as_row()``); when None, the audit runs here.
    """
    if findings is None:
        from benchledger.audit import run_audit

        findings = [f.as_row() for f in run_audit(ledger).findings]
    con = connect_fresh(path)
    with gc_paused():
        for name, (columns, producer) in TABLES.items():
            create_table(con, name, columns)
            insert_rows(con, name, columns, producer(ledger))
        create_table(con, "t_efficiency", EFFICIENCY_COLUMNS)
        insert_rows(con, "t_efficiency", EFFICIENCY_COLUMNS, efficiency_rows(ledger))
        create_table(con, "t_findings", FINDING_COLUMNS)
        insert_rows(con, "t_findings", FINDING_COLUMNS, findings)
    create_catalog_views(con)
    return con


def create_catalog_views(con: duckdb.DuckDBPyConnection) -> None:
    for package in CATALOG_VIEWS:
        create_views(con, view_sql(package))


__all__ = ["CATALOG_VIEWS", "build_catalog", "create_catalog_views"]
