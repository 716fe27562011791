"""aiperf importer: the real AIPerf 0.13 export (+ server metrics, per-request JSONL) → one measured draft."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.unit.importers.support import audit_errors, benchmark, options, results, snapshot

from benchledger.errors import ImportFormatError
from benchledger.importers import import_files
from benchledger.schema import Unknown


def _import(folder: Path, root: Path) -> str:
    outcomes = import_files("aiperf", [folder], root, options())
    return next(o.record_id for o in outcomes if o.kind == "benchmark")


def test_metric_semantics_are_mapped_explicitly(fixtures: Path, ledger_dir: Path) -> None:
    raw = json.loads((fixtures / "aiperf" / "profile_export_aiperf.json").read_text())
    got = results(benchmark(ledger_dir, _import(fixtures / "aiperf", ledger_dir)))
    # AIPerf "ITL" is vLLM's TPOT; AIPerf "ICL" is vLLM's ITL (per chunk).
    assert got[("tpot", "median", "aiperf-itl")] == raw["inter_token_latency"]["p50"]
    assert got[("itl", "median", "aiperf-icl")] == raw["inter_chunk_latency"]["p50"]
    assert got[("ttft", "median", "aiperf-ttft")] == raw["time_to_first_token"]["p50"]
    assert got[("output_throughput", "value", "aiperf-output-token-throughput")] == raw["output_token_throughput"]["avg"]
    assert not any(metric == "itl" and d == "aiperf-itl" for metric, _, d in got)
    # the README's "what the tool reported"
    assert round(got[("tpot", "median", "aiperf-itl")], 3) == 9.926
    assert round(got[("output_throughput", "value", "aiperf-output-token-throughput")], 1) == 1468.1


def test_acceptance_from_server_counters(fixtures: Path, ledger_dir: Path) -> None:
    record = benchmark(ledger_dir, _import(fixtures / "aiperf", ledger_dir))
    acc = record.arms[0].acceptance
    assert acc is not None and acc.rate is not None and acc.mean_length is not None
    assert acc.rate.value == pytest.approx(16200 / 27000) and acc.mean_length.value == pytest.approx(2.8)
    assert [round(q.value, 12) for q in acc.per_position] == [0.8, 0.6, 0.4]
    assert acc.rate.run is not None and acc.rate.run.endswith("/server_metrics_export.json")


def test_conditions_and_artifacts_and_audit(fixtures: Path, ledger_dir: Path) -> None:
    record = benchmark(ledger_dir, _import(fixtures / "aiperf", ledger_dir))
    w = record.workload
    assert getattr(w.concurrency, "value", None) == 16 and w.num_prompts == 200
    assert getattr(w.warmup, "value", None) == "none"
    assert getattr(w.ignore_eos, "value", None) is True
    assert isinstance(w.temperature, Unknown) and w.temperature.unknown == "source_omits"
    assert isinstance(record.subject.engine_version, Unknown)
    run_dir = ledger_dir / Path(record.arms[0].results[0].run or "").parent
    assert sorted(p.name for p in run_dir.iterdir()) == [
        "profile_export.jsonl", "profile_export_aiperf.json", "server_metrics_export.json"]
    assert audit_errors(ledger_dir) == []


def test_reimport_is_idempotent(fixtures: Path, ledger_dir: Path) -> None:
    first = _import(fixtures / "aiperf", ledger_dir)
    before = snapshot(ledger_dir)
    assert _import(fixtures / "aiperf", ledger_dir) == first
    assert snapshot(ledger_dir) == before


def test_wrong_file_names_key_and_writes_nothing(fixtures: Path, ledger_dir: Path, tmp_path: Path) -> None:
    bad = tmp_path / "profile_export_aiperf.json"
    shutil.copy(fixtures / "vllm" / "vllm-bench-serve.json", bad)
    with pytest.raises(ImportFormatError) as err:
        import_files("aiperf", [bad], ledger_dir, options())
    assert err.value.path == bad and err.value.key == "aiperf_version"
    assert snapshot(ledger_dir) == {}
