"""benchledger's DuckDB (ledger/duckdb_engine.py) is the package's own engine: the same functions, classes and
exceptions, so an error raised through one is caught as the other's, and a connection is the package's type."""

from __future__ import annotations

import duckdb
import pytest

from benchledger.ledger.duckdb_engine import duckdb as engine


@pytest.mark.parametrize("name", ["connect", "DuckDBPyConnection", "Error", "IOException", "FatalException",
                                  "CatalogException", "__version__"])
def test_every_name_benchledger_uses_is_the_packages_own(name: str) -> None:
    assert getattr(engine, name) == getattr(duckdb, name)


def test_a_connection_and_its_errors_are_the_packages() -> None:
    con = engine.connect(":memory:")
    try:
        assert isinstance(con, duckdb.DuckDBPyConnection)
        with pytest.raises(duckdb.CatalogException):
            con.execute("SELECT * FROM no_such_table")
        assert con.execute("SELECT 42").fetchall() == [(42,)]
    finally:
        con.close()
