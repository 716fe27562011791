"""The DuckDB index built from real files into a real DuckDB file: views, comparisons, exports."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from benchledger.catalog.build import build_catalog
from benchledger.ledger import Ledger
from benchledger.ledger.export import export_views

VIEWS = ("records", "benchmarks", "arms", "results", "sources", "conditions", "comparisons", "accelerators",
         "models", "formats", "engines", "findings")


def test_views_exist_in_a_real_duckdb_file(mini_ledger: Path, tmp_path: Path) -> None:
    db = tmp_path / "index.duckdb"
    build_catalog(Ledger.load(mini_ledger), db).close()
    con = duckdb.connect(str(db), read_only=True)
    names = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    assert set(VIEWS) <= names
    cols = {r[0] for r in con.execute("DESCRIBE results").fetchall()}
    assert {"record_id", "arm", "metric", "stat", "value", "unit", "provenance", "source_id", "quote"} <= cols
    cols = {r[0] for r in con.execute("DESCRIBE sources").fetchall()}
    assert {"id", "url", "retrieved", "sha256", "excerpt"} <= cols


def test_comparisons_are_derived(mini_ledger: Path) -> None:
    con = build_catalog(Ledger.load(mini_ledger))
    rows = con.execute("SELECT metric, ratio, percent_change, speedup FROM comparisons ORDER BY metric").fetchall()
    by_metric = {r[0]: r for r in rows}
    assert by_metric["output_throughput"][1] == pytest.approx(24.06 / 19.13)
    assert by_metric["output_throughput"][2] == pytest.approx((24.06 / 19.13 - 1) * 100)
    # TTFT is lower-is-better: the speedup is baseline / arm
    assert by_metric["ttft"][3] == pytest.approx(1380.8 / 2820.8)


def test_conditions_one_row_per_condition(mini_ledger: Path) -> None:
    con = build_catalog(Ledger.load(mini_ledger))
    rows = con.execute("SELECT condition, status, value FROM conditions WHERE arm = 'mtp4' ORDER BY 1").fetchall()
    got = {r[0]: (r[1], r[2]) for r in rows}
    assert got["input_tokens"] == ("known", "50000")
    assert got["hardware"] == ("known", "2x test-card")
    assert got["spec_k"] == ("known", "4")


def test_findings_view_holds_audit_output(mini_ledger: Path) -> None:
    (mini_ledger / "models" / "broken.md").write_text("---\nid: broken\nkind: model\n---\n")
    con = build_catalog(Ledger.load(mini_ledger))
    codes = {r[0] for r in con.execute("SELECT code FROM findings").fetchall()}
    assert "schema.invalid" in codes


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_export(mini_ledger: Path, tmp_path: Path, fmt: str) -> None:
    con = build_catalog(Ledger.load(mini_ledger))
    paths = export_views(con, tmp_path / "out", fmt)  # type: ignore[arg-type]
    names = {p.stem for p in paths}
    assert {"results", "comparisons", "records"} <= names
    results = tmp_path / "out" / f"results.{fmt}"
    reader = {"csv": "read_csv", "json": "read_json", "parquet": "read_parquet"}[fmt]
    con2 = duckdb.connect()
    assert con2.execute(f"SELECT count(*) FROM {reader}('{results}')").fetchall() == [(4,)]


def test_export_writes_every_view(mini_ledger: Path, tmp_path: Path) -> None:
    con = build_catalog(Ledger.load(mini_ledger))
    views = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    assert {"spec_outcomes", "engine_evidence", "efficiency", "metrics"} <= views
    paths = export_views(con, tmp_path / "out", "csv")
    assert {p.stem for p in paths} == views
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(f"{v}.csv" for v in views)


def test_an_apostrophe_in_the_export_path_is_a_path_not_sql(mini_ledger: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    con = build_catalog(Ledger.load(mini_ledger))
    exports = tmp_path / "exports"
    exports.mkdir()
    monkeypatch.chdir(exports)  # where an injected relative COPY target would land
    hostile = exports / "it's' (FORMAT csv); COPY (SELECT 1) TO 'injected.csv"
    paths = export_views(con, hostile, "csv", views=("records",))
    assert paths == [hostile / "records.csv"]
    rows = duckdb.connect().execute("SELECT count(*) FROM read_csv(?)", [str(paths[0])]).fetchone()
    assert rows == (len(Ledger.load(mini_ledger)),)
    assert sorted(p.name for p in exports.rglob("*") if p.is_file()) == ["records.csv"]


def test_a_record_over_32_mb_loads_into_the_index(mini_ledger: Path) -> None:
    from ledger_builder import source, write_all

    body = "| row | 1.0 |\n" * (34 * 2**20 // 14)  # DuckDB's JSON reader refused objects this big (issue 11)
    write_all(mini_ledger, [source("huge-source", body)])
    con = build_catalog(Ledger.load(mini_ledger), findings=[])
    assert con.execute("SELECT length(excerpt) FROM sources WHERE id = 'huge-source'").fetchone() == (len(body),)
    assert con.execute("SELECT length(body) FROM records WHERE id = 'huge-source'").fetchone() == (len(body),)
