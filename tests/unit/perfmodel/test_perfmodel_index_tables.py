"""The ``efficiency`` view in a real DuckDB index: one row per checkable result, equal to the ceiling module."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchledger.catalog.build import build_catalog
from benchledger.ledger import Ledger, write_record
from benchledger.perfmodel.ceiling import CeilingInputs, arm_ceiling
from benchledger.perfmodel.efficiency import record_efficiency
from benchledger.schema import Benchmark

from cli_runner import run_cli
from ledger_builder import physics_arm as arm
from ledger_builder import physics_benchmark as benchmark
from ledger_builder import write_physics_reference as write_reference


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    write_reference(tmp_path)
    write_record(tmp_path, benchmark("eff", [arm("c1", 10.0, 1), arm("c4", 35.0, 4),
                                             arm("c4-mtp", 60.0, 4, k=3, al=2.6, baseline="c4")]))
    write_record(tmp_path, benchmark("no-format", [arm("c1", 10.0, 1)], weights=None))
    return Ledger.load(tmp_path)


def test_efficiency_view_matches_the_ceiling_module(ledger: Ledger, tmp_path: Path) -> None:
    con = build_catalog(ledger, tmp_path / "index.duckdb")
    rows = con.execute("SELECT record_id, arm, metric, value, ceiling, efficiency_pct, limiting, basis "
                       "FROM efficiency ORDER BY record_id, arm").fetchall()
    record = ledger.get("eff")
    assert isinstance(record, Benchmark)
    expected = {a.arm: a.results[0] for a in record_efficiency(record, CeilingInputs(ledger))}
    assert [r[1] for r in rows] == ["c1", "c4", "c4-mtp"]  # 'no-format' has no ceiling: no row
    for _, name, metric, value, ceiling, pct, limiting, basis in rows:
        assert (metric, pct, ceiling) == (expected[name].metric, expected[name].efficiency_pct, expected[name].ceiling)
        assert pct == pytest.approx(100.0 * value / ceiling, rel=1e-4)
        assert limiting in ("memory", "compute")
        assert basis.startswith("roofline ceiling")


def test_shared_inputs_give_the_same_ceiling(ledger: Ledger) -> None:
    record = ledger.get("eff")
    assert isinstance(record, Benchmark)
    shared = CeilingInputs(ledger)
    for a in record.arms:
        assert arm_ceiling(ledger, record, a, shared) == arm_ceiling(ledger, record, a)
    assert arm_ceiling(ledger, record, record.arms[0], shared) is not None
    missing = ledger.get("no-format")
    assert isinstance(missing, Benchmark)
    assert arm_ceiling(ledger, missing, missing.arms[0], shared) == "weight format unknown"


def test_show_prints_the_efficiency_table(ledger: Ledger) -> None:
    out = run_cli("show", "eff", "--ledger", str(ledger.root))
    assert out.exit_code == 0, out.stderr
    assert "efficiency (result vs physical ceiling)" in out.stdout


def test_unknown_concurrency_gives_no_efficiency_against_the_compute_only_bound(tmp_path: Path) -> None:
    """Concurrency unknown: the aggregate bound is from compute alone; it caps the value, but 0.2 % of it is no
    efficiency — the index, ``show`` and the site say *n/a (concurrency unknown)* and name the bound."""
    from benchledger.perfmodel.bounds import NA_CONCURRENCY_UNKNOWN
    from benchledger.site.physics import physics_rows

    write_reference(tmp_path)
    unknown = arm("offline", 900.0, 1).model_copy(update={"workload": None})
    write_record(tmp_path, benchmark("conc-unknown", [unknown, arm("c1", 10.0, 1)]))
    ledger = Ledger.load(tmp_path)
    con = build_catalog(ledger, tmp_path / "index.duckdb")
    rows = con.execute("SELECT arm, efficiency_pct, efficiency_note, bound FROM efficiency ORDER BY arm").fetchall()
    assert rows[1] == ("offline", None, NA_CONCURRENCY_UNKNOWN, "aggregate bound from compute alone")
    assert rows[0][1] is not None and rows[0][2] is None and rows[0][3] == "aggregate bound"
    site, _ = physics_rows(ledger)
    assert site["conc-unknown"]["offline"]["efficiency"] is None
    assert site["conc-unknown"]["offline"]["efficiency_note"] == NA_CONCURRENCY_UNKNOWN
    assert site["conc-unknown"]["c1"]["efficiency"] == pytest.approx(rows[0][1] / 100.0)
    out = run_cli("show", "conc-unknown", "--ledger", str(ledger.root))
    assert out.exit_code == 0, out.stderr
    assert NA_CONCURRENCY_UNKNOWN in out.stdout and "aggregate bound from compute alone" in out.stdout


def test_predict_names_its_bounds_as_the_index_does() -> None:
    import json

    from benchledger.perfmodel.bounds import bound_name

    base = ["predict", "--model", "qwen3.8-27b", "--hardware", "nvidia-gb10", "--weights", "fp8-e4m3",
            "--context", "1000", "--json"]
    plain = json.loads(run_cli(*base).stdout)
    spec = json.loads(run_cli(*base, "--spec", "mtp", "--k", "3", "--acceptance-length", "2.5").stdout)
    assert plain["ceiling_name"] == "per-stream bound" == bound_name("per_stream_throughput", draft_cost=None)
    assert spec["ceiling_name"] == "per-stream bound (with draft cost)"
    assert spec["ceiling_aggregate_name"] == "aggregate bound (with draft cost)"
    human = run_cli(*base[:-1], "--spec", "mtp", "--k", "3", "--acceptance-length", "2.5").stdout
    assert "per-stream bound (with draft cost)" in human
