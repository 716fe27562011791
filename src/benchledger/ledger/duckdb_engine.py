"""DuckDB as every module of benchledger imports it: its engine, without the Python package wrapped around it.

DuckDB 2 ships its engine as the extension module ``_duckdb``. The ``duckdb`` package re-exports it (the same
objects: ``connect``, ``DuckDBPyConnection``, the exceptions; ``duckdb.Error is _duckdb.Error``) and adds what
benchledger does not use: an expression and relation API in Python, data-frame sources, and a version lookup
through ``importlib.metadata``. Importing the package takes ~0.1-0.15 s of CPU here, the engine alone ~0.03 s: a
quarter of a warm ``benchledger query`` (benchmarks/ledger_scale.py). A DuckDB without ``_duckdb`` (before 2.0)
is imported as its package. Type checkers see the package, which declares the same names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import duckdb
else:
    try:
        import _duckdb as duckdb
    except ImportError:  # (DuckDB 1.x: the engine is ``duckdb.duckdb``, inside the package)
        import duckdb

__all__ = ["duckdb"]
