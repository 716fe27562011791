"""The physics columns of the site (ceiling, efficiency, limiting term), when the physics model is installed.

The physics model (``benchledger.perfmodel``) registers its per-arm table in the index
(``benchledger.ledger.index.EXTRA_TABLES``) when it is importable. This module finds that table by its shape —
``record_id``, ``arm`` and ``efficiency`` columns — and groups it by record and arm. When there is none, every
page shows "—" with a title that says why: a missing ceiling is never rendered as zero or blank.
"""

from __future__ import annotations

from typing import Any

import duckdb

from benchledger.ledger.store import Ledger

UNAVAILABLE = (
    "physics model not available in this build: benchledger.perfmodel is not importable or registers no "
    "per-arm efficiency table, so no ceiling or efficiency is shown"
)
NO_CEILING = "the physics model gives no ceiling for this arm (a hardware or model figure it needs is unknown)"


def physics_rows(ledger: Ledger, con: duckdb.DuckDBPyConnection) -> tuple[dict[str, dict[str, dict[str, Any]]], str]:
    """``{record_id: {arm: row}}`` from the physics table, and a note for pages ('' when available)."""
    del ledger  # the table is already in the index; kept for a stable signature
    table = _physics_table(con)
    if table is None:
        return {}, UNAVAILABLE
    cursor = con.execute(f'SELECT * FROM "{table}" ORDER BY record_id, arm')
    names = [d[0] for d in cursor.description]
    grouped: dict[str, dict[str, dict[str, Any]]] = {}
    for values in cursor.fetchall():
        row = dict(zip(names, values, strict=True))
        grouped.setdefault(str(row["record_id"]), {})[str(row["arm"])] = row
    return grouped, ""


def _physics_table(con: duckdb.DuckDBPyConnection) -> str | None:
    from benchledger.ledger.index import EXTRA_TABLES

    for name in sorted(EXTRA_TABLES):
        columns = set(EXTRA_TABLES[name][0])
        if {"record_id", "arm", "efficiency"} <= columns:
            found = con.execute(
                "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [name]
            ).fetchone()
            if found and found[0]:
                return name
    return None


def best_efficiency(rows: dict[str, dict[str, Any]]) -> float | None:
    """The highest efficiency over a record's arms (None when no arm has one)."""
    values = [float(r["efficiency"]) for r in rows.values() if r.get("efficiency") is not None]
    return max(values) if values else None


__all__ = ["NO_CEILING", "UNAVAILABLE", "best_efficiency", "physics_rows"]
