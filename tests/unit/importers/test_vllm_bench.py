"""vllm-bench importer: the real `vllm bench serve` fixture → one measured draft benchmark."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from tests.unit.importers.support import audit_errors, benchmark, options, results, snapshot

from benchledger.errors import ImportFormatError
from benchledger.importers import import_files
from benchledger.schema import Unknown


def _import(fixtures: Path, root: Path) -> str:
    outcomes = import_files("vllm-bench", [fixtures / "vllm" / "vllm-bench-serve.json"], root, options())
    return next(o.record_id for o in outcomes if o.kind == "benchmark")


def test_values_match_the_tools_own_summary(fixtures: Path, ledger_dir: Path) -> None:
    raw = json.loads((fixtures / "vllm" / "vllm-bench-serve.json").read_text())
    record = benchmark(ledger_dir, _import(fixtures, ledger_dir))
    got = results(record)
    assert got[("output_throughput", "value", "vllm-output-throughput")] == raw["output_throughput"]
    assert got[("ttft", "median", "vllm-ttft")] == raw["median_ttft_ms"]
    assert got[("tpot", "median", "vllm-tpot")] == raw["median_tpot_ms"]
    assert got[("itl", "median", "vllm-itl-per-chunk")] == raw["median_itl_ms"]
    assert got[("e2e_latency", "p99", "vllm-e2el")] == raw["p99_e2el_ms"]
    assert got[("completed_requests", "value", "vllm-completed")] == 200
    acc = record.arms[0].acceptance
    assert acc is not None and acc.rate is not None and acc.mean_length is not None
    assert (acc.rate.value, acc.rate.unit, acc.mean_length.value) == (60.0, "%", 2.8)
    assert [q.value for q in acc.per_position] == [0.8, 0.6, 0.4]
    assert acc.definition == "vllm-counters-windowed"


def test_conditions_stated_and_omitted(fixtures: Path, ledger_dir: Path) -> None:
    record = benchmark(ledger_dir, _import(fixtures, ledger_dir))
    w, s = record.workload, record.subject
    assert w.scenario == "fixed-concurrency" and w.num_prompts == 200
    assert getattr(w.concurrency, "value", None) == 16
    assert getattr(w.input_tokens, "value", None) == 128 and getattr(w.output_tokens, "value", None) == 128
    for cond in (w.warmup, w.temperature, w.dataset, s.engine_version, s.accelerator_count):
        assert isinstance(cond, Unknown) and cond.unknown == "source_omits"
    assert (s.model, s.engine, s.accelerator) == ("unknown-model", "unknown-engine", "unknown-accelerator")
    assert "`fake-model`" in record.body


def test_artifact_stored_with_its_sha256_and_audit_passes(fixtures: Path, ledger_dir: Path) -> None:
    record = benchmark(ledger_dir, _import(fixtures, ledger_dir))
    data = (fixtures / "vllm" / "vllm-bench-serve.json").read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    run = record.arms[0].results[0].run
    assert run == f"runs/imports/{sha[:12]}/vllm-bench-serve.json"
    assert (ledger_dir / run).read_bytes() == data
    assert record.arms[0].results[0].sha256 == sha
    assert audit_errors(ledger_dir) == []


def test_reimport_is_idempotent(fixtures: Path, ledger_dir: Path) -> None:
    first = _import(fixtures, ledger_dir)
    before = snapshot(ledger_dir)
    outcomes = import_files("vllm-bench", [fixtures / "vllm" / "vllm-bench-serve.json"], ledger_dir, options())
    assert {o.status for o in outcomes} == {"unchanged"}
    assert next(o.record_id for o in outcomes if o.kind == "benchmark") == first
    assert snapshot(ledger_dir) == before


@pytest.mark.parametrize(("drop", "key"), [("duration", "duration"), ("output_throughput", "output_throughput")])
def test_missing_key_names_file_and_key_and_writes_nothing(fixtures: Path, ledger_dir: Path, tmp_path: Path,
                                                           drop: str, key: str) -> None:
    raw = json.loads((fixtures / "vllm" / "vllm-bench-serve.json").read_text())
    del raw[drop]
    bad = tmp_path / "broken.json"
    bad.write_text(json.dumps(raw))
    good = tmp_path / "good.json"
    shutil.copy(fixtures / "vllm" / "vllm-bench-serve.json", good)
    with pytest.raises(ImportFormatError) as err:
        import_files("vllm-bench", [good, bad], ledger_dir, options())
    assert err.value.path == bad and err.value.key == key
    assert str(bad) in str(err.value)
    assert snapshot(ledger_dir) == {}


def test_not_json_is_a_format_error(ledger_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text("{\n  not json\n")
    with pytest.raises(ImportFormatError, match="line 2"):
        import_files("vllm-bench", [bad], ledger_dir, options())
    assert snapshot(ledger_dir) == {}


@pytest.mark.parametrize(("key", "value"), [("output_throughput", -1830.5), ("median_ttft_ms", -3.0)])
def test_impossible_value_is_a_format_error(fixtures: Path, ledger_dir: Path, tmp_path: Path,
                                            key: str, value: float) -> None:
    """A negative throughput or latency cannot be measured: refused, naming the file, nothing written (issue 11)."""
    raw = json.loads((fixtures / "vllm" / "vllm-bench-serve.json").read_text())
    raw[key] = value
    bad = tmp_path / "negative.json"
    bad.write_text(json.dumps(raw))
    with pytest.raises(ImportFormatError, match="must be > 0") as err:
        import_files("vllm-bench", [bad], ledger_dir, options())
    assert err.value.path == bad
    assert snapshot(ledger_dir) == {}
