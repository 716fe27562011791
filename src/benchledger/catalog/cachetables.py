"""The cache's own tables about record files and per-record check results (``_cache_files``,
``_cache_findings``, ``_cache_facts``): their columns and how their rows are made.

The cold build writes these rows where each record is checked (``cold.py``: in its worker), the update path
for the changed records (``refresh.py``); both load them as any table's rows (``ledger.index.insert_files``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from benchledger.audit.finding import Finding
from benchledger.ledger.index import Columns
from benchledger.ledger.rows import Row

FILE_COLUMNS: Columns = {
    "path": "VARCHAR", "sha256": "VARCHAR", "size": "BIGINT", "mtime_ns": "BIGINT",
    "ctime_ns": "BIGINT", "ino": "BIGINT", "racy": "BOOLEAN", "record_id": "VARCHAR", "kind": "VARCHAR",
    "err_line": "INTEGER", "err_field": "VARCHAR", "err_message": "VARCHAR", "err_code": "VARCHAR",
}
LOCAL_COLUMNS: Columns = {"record": "VARCHAR", "code": "VARCHAR", "severity": "VARCHAR", "field": "VARCHAR",
                          "message": "VARCHAR"}
FACT_COLUMNS: Columns = {"check_name": "VARCHAR", "record": "VARCHAR", "facts": "VARCHAR"}
"""One row per ``split`` check and record: that record's facts as JSON (an update replaces the changed records')."""


def by_record(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    out: dict[str, list[Finding]] = {}
    for f in findings:
        out.setdefault(f.record, []).append(f)
    return out


def local_rows(local: dict[str, list[Finding]]) -> Iterator[Row]:
    for record, findings in local.items():
        for f in findings:
            yield {"record": record, "code": f.code, "severity": f.severity, "field": f.field, "message": f.message}


def fact_rows(facts: dict[str, dict[str, Any]]) -> Iterator[Row]:
    for check_name, by_id in facts.items():
        for record, found in by_id.items():
            yield {"check_name": check_name, "record": record, "facts": json.dumps(found, separators=(",", ":"))}


__all__ = ["FACT_COLUMNS", "FILE_COLUMNS", "LOCAL_COLUMNS", "by_record", "fact_rows", "local_rows"]
