"""The shipped ledger: audit-clean, canonical, and holding every number of the seed tables."""

from __future__ import annotations

import pytest

from benchledger.audit import run_audit
from benchledger.catalog.build import build_catalog
from benchledger.ledger import Ledger, dump_record
from benchledger.ledger.paths import bundled_ledger_dir


@pytest.fixture(scope="module")
def ledger() -> Ledger:
    return Ledger.load(bundled_ledger_dir())


@pytest.fixture(scope="module")
def con(ledger: Ledger):  # type: ignore[no-untyped-def]
    return build_catalog(ledger)


def test_audit_has_no_errors(ledger: Ledger) -> None:
    report = run_audit(ledger)
    assert report.errors == [], "\n".join(f"{f.record} {f.code} {f.field}: {f.message}" for f in report.errors)


def test_files_are_canonical(ledger: Ledger) -> None:
    for record in ledger:
        path = ledger.paths[record.id]
        assert path.read_text(encoding="utf-8") == dump_record(record), f"{path}: run `benchledger fmt`"


LLM_SCALER = {  # (arm, metric) -> value, every cell of the issue's two tables
    ("fp8-50k-base", "ttft"): 1380.8, ("fp8-50k-base", "output_throughput"): 19.13,
    ("fp8-50k-mtp4-high", "ttft"): 2820.8, ("fp8-50k-mtp4-high", "output_throughput"): 24.06,
    ("fp8-50k-mtp4-low", "ttft"): 2827.6, ("fp8-50k-mtp4-low", "output_throughput"): 16.13,
    ("int4-50k-base", "ttft"): 1384.6, ("int4-50k-base", "output_throughput"): 24.04,
    ("int4-50k-mtp4-high", "ttft"): 2800.6, ("int4-50k-mtp4-high", "output_throughput"): 25.88,
    ("int4-50k-mtp4-low", "ttft"): 2802.2, ("int4-50k-mtp4-low", "output_throughput"): 15.17,
    ("fp8-1k-base", "ttft"): 1181.1, ("fp8-1k-base", "output_throughput"): 23.24,
    ("fp8-1k-mtp4-high", "ttft"): 1240.6, ("fp8-1k-mtp4-high", "output_throughput"): 53.78,
    ("fp8-1k-mtp4-low", "ttft"): 1254.5, ("fp8-1k-mtp4-low", "output_throughput"): 24.28,
    ("int4-1k-base", "ttft"): 1202.0, ("int4-1k-base", "output_throughput"): 31.03,
    ("int4-1k-mtp4-high", "ttft"): 1240.4, ("int4-1k-mtp4-high", "output_throughput"): 63.13,
    ("int4-1k-mtp4-low", "ttft"): 1240.3, ("int4-1k-mtp4-low", "output_throughput"): 29.87,
}


def test_llm_scaler_tables_are_in_results(con) -> None:  # type: ignore[no-untyped-def]
    rows = con.execute("SELECT arm, metric, value, provenance, source_id FROM results "
                       "WHERE record_id = 'llm-scaler-657-qwen3.8-27b-2x-b60-mtp4-context'").fetchall()
    got = {(r[0], r[1]): r[2] for r in rows}
    assert got == LLM_SCALER
    assert {(r[3], r[4]) for r in rows} == {("quoted", "llm-scaler-657")}


def test_llm_scaler_50k_fp8_speedup_is_derived(con) -> None:  # type: ignore[no-untyped-def]
    ratio, pct = con.execute(
        "SELECT ratio, percent_change FROM comparisons WHERE record_id = 'llm-scaler-657-qwen3.8-27b-2x-b60-mtp4-context'"
        " AND arm = 'fp8-50k-mtp4-high' AND metric = 'output_throughput'").fetchone()
    assert ratio == pytest.approx(24.06 / 19.13) and round(ratio, 3) == 1.258
    assert round(pct, 1) == 25.8


def test_llm_scaler_acceptance(con) -> None:  # type: ignore[no-untyped-def]
    rows = con.execute("SELECT arm, acceptance_rate, acceptance_length FROM arms "
                       "WHERE record_id = 'llm-scaler-657-qwen3.8-27b-2x-b60-mtp4-context' AND spec_method = 'mtp'"
                       " ORDER BY arm").fetchall()
    got = {r[0]: (round(r[1], 4), r[2]) for r in rows}
    assert got["fp8-50k-mtp4-high"] == (0.949, 4.79)
    assert got["int4-1k-mtp4-low"] == (0.287, 2.15)
    assert len(got) == 8


def test_autobench_c1_pair(con) -> None:  # type: ignore[no-untyped-def]
    rows = con.execute("SELECT arm, metric, stat, value FROM results "
                       "WHERE record_id = 'autobench-qwen3.8-27b-nvfp4-gb10-mtp3-c1'").fetchall()
    got = {(r[0], r[1], r[2]): r[3] for r in rows}
    assert got[("base", "output_throughput", "value")] == 11.16
    assert got[("mtp3", "output_throughput", "value")] == 21.35
    assert got[("base", "tpot", "median")] == 88.5 and got[("mtp3", "tpot", "median")] == 44.6
    assert got[("base", "ttft", "median")] == 177.1 and got[("mtp3", "ttft", "median")] == 264.2
    assert got[("mtp3", "completed_requests", "value")] == 83
    per_pos = con.execute("SELECT acceptance_per_position, acceptance_length FROM arms WHERE record_id = "
                          "'autobench-qwen3.8-27b-nvfp4-gb10-mtp3-c1' AND arm = 'mtp3'").fetchone()
    assert per_pos == ([0.78, 0.56, 0.44], 2.8)


def test_vllm_35387_latency_arms(con) -> None:  # type: ignore[no-untyped-def]
    rows = con.execute("SELECT arm, stat, value, unit FROM results WHERE record_id = "
                       "'vllm-35387-qwen3-next-80b-a3b-fp8-4x-h100-mtp2-latency'").fetchall()
    got = {(r[0], r[1]): r[2] for r in rows}
    assert got[("baseline", "mean")] == 0.894 and got[("mtp2", "mean")] == 1.578
    assert got[("mtp2-prefix-caching", "p99")] == 1.691
    pct = con.execute("SELECT percent_change FROM comparisons WHERE record_id = "
                      "'vllm-35387-qwen3-next-80b-a3b-fp8-4x-h100-mtp2-latency' AND arm = 'mtp2' AND stat = 'mean'"
                      ).fetchone()[0]
    assert round(pct, 1) == 76.5
    unknowns = con.execute("SELECT condition, reason FROM conditions WHERE record_id = "
                           "'vllm-35387-qwen3-next-80b-a3b-fp8-4x-h100-mtp2-latency' AND arm = 'baseline' "
                           "AND status = 'unknown' ORDER BY 1").fetchall()
    assert ("input_tokens", "source_omits") in unknowns and ("warmup", "source_omits") in unknowns


def test_coverage_page_is_fresh(ledger: Ledger, con) -> None:  # type: ignore[no-untyped-def]
    from benchledger.ledger.coverage import coverage_markdown

    page = (ledger.root / "README.md").read_text(encoding="utf-8")
    assert page == coverage_markdown(con), "run `benchledger coverage --write`"


def test_issue7_coverage_floor(con) -> None:  # type: ignore[no-untyped-def]
    """At least 25 cited sources, 150 arms, 4 engines, 4 hardware vendors; MTP speedups of Qwen3.x-27B-class
    models from at least 5 sources."""
    sources = con.execute("SELECT count(DISTINCT s) FROM (SELECT unnest(sources) s FROM benchmarks)").fetchone()[0]
    arms = con.execute("SELECT count(*) FROM arms").fetchone()[0]
    engines = con.execute("SELECT count(DISTINCT engine) FROM arms").fetchone()[0]
    vendors = con.execute("SELECT count(DISTINCT lower(x.vendor)) FROM arms a JOIN accelerators x "
                          "ON x.id = a.accelerator").fetchone()[0]
    assert sources >= 25 and arms >= 150 and engines >= 4 and vendors >= 4
    qwen = con.execute("""
        SELECT count(DISTINCT src) FROM (
          SELECT unnest(b.sources) AS src FROM spec_outcomes o JOIN benchmarks b ON b.id = o.record_id
          WHERE o.model SIMILAR TO 'qwen3\\.[0-9]+-27b' AND o.spec_method = 'mtp')""").fetchone()[0]
    assert qwen >= 5
