"""ingest-table: a Markdown table in a stored source excerpt → draft arms with every number quoted by its row."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

import pytest
from tests.unit.importers.support import audit_errors, benchmark, options, snapshot

from benchledger.errors import BenchledgerError
from benchledger.importers import ingest_source_table
from benchledger.importers.tables import find_tables
from benchledger.ledger.io import write_record
from benchledger.schema import Source

# Rows as published in the autobench Qwen3.8-27B validation table.
EXCERPT = """Validation data.

| conc | base decode | +MTP decode | speedup | base TPOT | MTP TPOT | base TTFT |
|---|---|---|---|---|---|---|
| 1 | 11.16 | 21.35 | +91% | 88.5 | 44.6 | 177 |
| 32 | 209.97 | 274.74 | +31% | 144.1 | 108.0 | 456 |

Text after the table.

| a | b |
|---|---|
| x | 1 |
"""


def _source(root: Path) -> Source:
    source = Source(kind="source", id="autobench-validation", title="autobench validation table",
                    source_type="benchmark-page", retrieved=dt.date(2026, 11, 30),
                    sha256=hashlib.sha256(EXCERPT.encode()).hexdigest(), body=EXCERPT)
    write_record(root, source)
    return source


def test_find_tables() -> None:
    tables = find_tables(EXCERPT)
    assert [len(t.rows) for t in tables] == [2, 1]
    assert tables[0].header[1] == "base decode"


def test_rows_become_quoted_arms(ledger_dir: Path) -> None:
    _source(ledger_dir)
    outcomes = ingest_source_table("autobench-validation", 1, ledger_dir, options())
    record = benchmark(ledger_dir, next(o.record_id for o in outcomes if o.kind == "benchmark"))
    assert [a.name for a in record.arms] == ["1", "32"]
    arm = record.arms[0]
    row = "| 1 | 11.16 | 21.35 | +91% | 88.5 | 44.6 | 177 |"
    assert {r.quote for r in arm.results} == {row}
    assert [(r.metric, r.value) for r in arm.results] == [
        ("output_throughput", 11.16), ("output_throughput", 21.35), ("tpot", 88.5), ("tpot", 44.6), ("ttft", 177.0)]
    assert getattr(arm.workload.concurrency if arm.workload else None, "value", None) == 1
    assert "speedup=+91%" in arm.note
    assert audit_errors(ledger_dir) == []


def test_out_of_range_table_writes_nothing(ledger_dir: Path) -> None:
    _source(ledger_dir)
    before = snapshot(ledger_dir)
    with pytest.raises(BenchledgerError, match="out of range"):
        ingest_source_table("autobench-validation", 3, ledger_dir, options())
    assert snapshot(ledger_dir) == before
