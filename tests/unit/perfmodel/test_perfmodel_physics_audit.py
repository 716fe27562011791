"""The physics audit on a real ledger folder: a result made 2× faster than possible is an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchledger.audit.checks import physics_above_ceiling
from benchledger.audit.context import AuditContext
from benchledger.ledger import Ledger, write_record
from benchledger.perfmodel.ceiling import CeilingInputs, arm_ceiling
from benchledger.perfmodel.efficiency import record_efficiency
from benchledger.schema import Benchmark

from ledger_builder import GB10_BW
from ledger_builder import physics_arm as arm
from ledger_builder import physics_benchmark as benchmark
from ledger_builder import write_physics_reference as write_reference


def _bytes_per_step_c1() -> float:
    # strict lower bound at B=1, context 1000: body + lm_head in nvfp4, fp8 KV of 16 layers, state read + write
    vh = 248320 * 5120
    body = 27e9 - 2 * vh
    return (body + vh) * 0.5625 + 1000 * 2 * 4 * 256 * 16 * 1.0 + 144 * 2**20 * 2


@pytest.fixture
def ledger_dir(tmp_path: Path) -> Path:
    write_reference(tmp_path)
    return tmp_path


def test_ceiling_is_bandwidth_over_strict_bytes(ledger_dir: Path) -> None:
    write_record(ledger_dir, benchmark("b-ok", [arm("c1", 10.0, 1)]))
    ledger = Ledger.load(ledger_dir)
    record = ledger.get("b-ok")
    assert isinstance(record, Benchmark)
    ceiling = arm_ceiling(ledger, record, record.arms[0])
    assert not isinstance(ceiling, str)
    assert ceiling.tok_s_per_stream == pytest.approx(GB10_BW * 1e9 / _bytes_per_step_c1(), rel=1e-9)


def test_a_result_twice_the_ceiling_is_an_error_and_a_plausible_one_is_not(ledger_dir: Path) -> None:
    ceiling = GB10_BW * 1e9 / _bytes_per_step_c1()
    write_record(ledger_dir, benchmark("b-fast", [arm("c1", 2 * ceiling, 1)]))
    write_record(ledger_dir, benchmark("b-ok", [arm("c1", 0.7 * ceiling, 1)]))
    ledger = Ledger.load(ledger_dir)
    findings = list(physics_above_ceiling.check(AuditContext(ledger)))
    errors = [f for f in findings if f.code == "physics.above-ceiling"]
    assert [(f.record, f.field, f.severity) for f in errors] == [("b-fast", "arms.c1.results.0", "error")]
    assert "200 %" in errors[0].message
    ok = ledger.get("b-ok")
    assert isinstance(ok, Benchmark)
    [row] = record_efficiency(ok, CeilingInputs(ledger))[0].results
    assert (row.metric, row.stat) == ("output_throughput", "value")
    assert row.efficiency_pct == pytest.approx(70.0, rel=1e-3)


def test_speculative_arms_may_exceed_the_plain_ceiling_up_to_k_plus_one(ledger_dir: Path) -> None:
    ceiling = GB10_BW * 1e9 / _bytes_per_step_c1()
    # 2× the plain ceiling is possible with k=3 (T=4) but not with k=1 at 2.5×
    write_record(ledger_dir, benchmark("b-spec", [
        arm("mtp3", 2 * ceiling, 1, k=3, al=2.7), arm("mtp1", 2.5 * ceiling, 1, k=1, al=1.8)]))
    findings = list(physics_above_ceiling.check(AuditContext(Ledger.load(ledger_dir))))
    assert [f.field for f in findings if f.code == "physics.above-ceiling"] == ["arms.mtp1.results.0"]


def test_unknown_weight_format_gives_an_info_finding(ledger_dir: Path) -> None:
    write_record(ledger_dir, benchmark("b-unknown", [arm("c1", 1e6, 1)], weights=None))
    findings = list(physics_above_ceiling.check(AuditContext(Ledger.load(ledger_dir))))
    assert [(f.code, f.severity) for f in findings] == [("physics.ceiling-unknown", "info")]
    assert "weight format unknown" in findings[0].message


def test_unknown_concurrency_still_bounds_aggregate_throughput_by_compute(ledger_dir: Path) -> None:
    from benchledger.schema import Unknown

    vh = 248320 * 5120
    bound = 500e12 / (2 * (27e9 - vh))  # dense fp4 peak (1000 TF sparse / 2) over 2 FLOPs per active param
    unknown = Unknown(unknown="source_omits")
    write_record(ledger_dir, benchmark("b-any", [arm("fast", 2 * bound, unknown), arm("ok", 0.5 * bound, unknown)]))
    ledger = Ledger.load(ledger_dir)
    record = ledger.get("b-any")
    assert isinstance(record, Benchmark)
    ceiling = arm_ceiling(ledger, record, record.arms[0])
    assert not isinstance(ceiling, str)
    assert ceiling.aggregate_tok_s == pytest.approx(bound, rel=1e-9)
    findings = list(physics_above_ceiling.check(AuditContext(ledger)))
    assert [f.field for f in findings if f.code == "physics.above-ceiling"] == ["arms.fast.results.0"]
