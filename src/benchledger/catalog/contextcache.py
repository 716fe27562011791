"""The non-benchmark records of a cached index, kept parsed: an update reads them from here, not their files.

Every check of a changed benchmark may read any reference record (sources' excerpts, accelerators, models,
…), and an update runs only while none of them changed (a change there rebuilds: ``refresh.py``). Parsing
them again from YAML costs ~0.1 CPU-s on the bundled ledger's ~870; unpickling the objects the build parsed,
~0.02. The pickle is keyed by a digest of the records' files (path and content hash, in scan order) and of
the code that made it (Python, pydantic); it is read with an unpickler that makes only ``benchledger.schema``
models and the few value types they hold, so a damaged or foreign blob raises and the records are parsed
from their files instead, never run as code (tests/integration/test_index_cache.py).
"""

from __future__ import annotations

import enum
import hashlib
import importlib
import io
import pickle
import sys
from collections.abc import Iterable
from typing import Any

import pydantic
import pydantic_core

from benchledger.ledger.duckdb_engine import duckdb
from benchledger.schema import Record

CONTEXT_TABLE = "_cache_context"
"""One row: the digest of the records' files (``digest``) and the pickled ``[(path, record), …]`` (``records``)."""
VALUE_TYPES = {("datetime", "date"), ("datetime", "datetime"), ("datetime", "timezone"), ("datetime", "timedelta"),
               ("pydantic_core._pydantic_core", "Url"), ("pydantic_core._pydantic_core", "MultiHostUrl")}
"""Classes other than the schema's models that a pickled record may name (each rebuilt from plain values)."""
MAX_KEPT_BYTES = 1 << 30
"""A pickle larger than this is not kept (DuckDB holds a BLOB of up to 4 GB; the bundled ledger's is ~5 MB)."""
SCHEMA_PACKAGE = "benchledger.schema"
URL_MODULE = "pydantic.networks"


def context_digest(files: Iterable[tuple[str, str]]) -> str:
    """A digest of ``(path, sha256)`` of the record files, in order, and of the code a pickle depends on."""
    digest = hashlib.sha256(f"{sys.version}\0{pydantic.VERSION}\0{pydantic_core.__version__}\n".encode())
    for rel, sha in files:
        digest.update(f"{rel}\0{sha}\n".encode())
    return digest.hexdigest()


def create_context_table(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(f"CREATE TABLE {CONTEXT_TABLE} (digest VARCHAR, records BLOB)")


def keep_context(con: duckdb.DuckDBPyConnection, digest: str, records: list[tuple[str, Record]], *,
                 limit: int = MAX_KEPT_BYTES) -> bool:
    """Keep these records parsed in ``con``'s table, in place of what it kept; nothing when their pickle is
    over ``limit`` bytes (then an update parses the files). Whether they were kept."""
    con.execute(f"DELETE FROM {CONTEXT_TABLE}")
    blob = dump_context(records)
    if len(blob) > limit:
        return False
    con.execute(f"INSERT INTO {CONTEXT_TABLE} VALUES (?, ?)", [digest, blob])
    return True


def kept_context(con: duckdb.DuckDBPyConnection, digest: str) -> list[tuple[str, Record]] | None:
    """The records kept in ``con`` when they were kept for files of this ``digest`` and load (else None)."""
    row = con.execute(f"SELECT digest, records FROM {CONTEXT_TABLE}").fetchone()
    return load_context(row[1]) if row is not None and row[0] == digest else None


def dump_context(records: list[tuple[str, Record]]) -> bytes:
    """The records with their paths (relative to the ledger), pickled."""
    return pickle.dumps(records, protocol=pickle.HIGHEST_PROTOCOL)


def load_context(blob: bytes) -> list[tuple[str, Record]] | None:
    """What ``dump_context`` pickled; None when the blob is damaged or names anything else."""
    try:
        loaded = _RecordUnpickler(io.BytesIO(blob)).load()
    except Exception:
        return None
    if not isinstance(loaded, list) or not all(
            isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], pydantic.BaseModel)
            for item in loaded):
        return None
    return loaded


class _RecordUnpickler(pickle.Unpickler):
    """Makes schema models (and enums), the URL types pydantic holds, dates; refuses every other class."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in VALUE_TYPES:
            return super().find_class(module, name)
        if module == SCHEMA_PACKAGE or module.startswith(SCHEMA_PACKAGE + "."):
            found = getattr(importlib.import_module(module), name, None)
            if isinstance(found, type) and issubclass(found, pydantic.BaseModel | enum.Enum):
                return found
        if module == URL_MODULE:
            found = getattr(importlib.import_module(module), name, None)
            if isinstance(found, type) and issubclass(found, pydantic.AnyUrl):
                return found
        raise pickle.UnpicklingError(f"a cached record may not hold {module}.{name}")


__all__ = ["CONTEXT_TABLE", "context_digest", "create_context_table", "dump_context", "keep_context", "kept_context",
           "load_context"]
