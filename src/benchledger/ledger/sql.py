"""SQL over an index connection: run a query, list the views, quote a name. Imports no schema (fast)."""

from __future__ import annotations

from typing import Any

from benchledger.errors import LedgerError
from benchledger.ledger.duckdb_engine import duckdb


def quote_identifier(name: str) -> str:
    """``name`` as a DuckDB identifier: double-quoted, inner quotes doubled."""
    return '"' + name.replace('"', '""') + '"'


def sql_text(text: str) -> str:
    """``text`` as a DuckDB string literal, inner quotes doubled (for statements that take no parameter:
    ``ATTACH``)."""
    return "'" + text.replace("'", "''") + "'"


def public_views(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every view of the index (the public surface), sorted by name."""
    return [r[0] for r in con.execute(
        "SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY view_name").fetchall()]


def query(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Run SQL; return column names and rows. A bad query raises ``LedgerError`` with DuckDB's message."""
    try:
        cursor = con.execute(sql)
    except duckdb.Error as exc:
        raise LedgerError(f"query failed: {exc}") from None
    columns = [d[0] for d in cursor.description] if cursor.description else []
    return columns, cursor.fetchall()


__all__ = ["public_views", "query", "quote_identifier", "sql_text"]
