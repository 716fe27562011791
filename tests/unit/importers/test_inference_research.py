"""inference-research importer: real upstream benchmark JSON records → quoted drafts; ratios refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.unit.importers.support import audit_errors, benchmark, options, results, snapshot

from benchledger.errors import ImportFormatError
from benchledger.importers import import_files
from benchledger.schema import Unknown

DIR = "inference-research/benchmarks"


def test_seed_record_value_quoted_and_conditions_unchecked(fixtures: Path, ledger_dir: Path) -> None:
    path = fixtures / DIR / "ev-vllm-mtp-regression-qwen3-next-80b-a3b.json"
    outcomes = import_files("inference-research", [path], ledger_dir, options())
    record = benchmark(ledger_dir, next(o.record_id for o in outcomes if o.kind == "benchmark"))
    (result,) = record.arms[0].results
    assert (result.metric, result.value, result.unit) == ("ttft", 894.0, "ms")
    assert result.quote == '"value": 894.0' and result.definition == "inference-research-ttft_ms"
    assert "end-to-end latency" in result.note  # the upstream unit text travels with the number
    assert record.measured_by == "third-party"
    w = record.workload
    assert isinstance(w.concurrency, Unknown) and w.concurrency.unknown == "unchecked"
    assert isinstance(record.subject.weights, Unknown) and record.subject.weights.unknown == "source_omits"
    assert "THREE ARMS" in record.body  # methodology copied verbatim for the reviewer
    assert audit_errors(ledger_dir) == []


@pytest.mark.parametrize(("name", "metric"), [
    ("trtllm-llama31-8b-fp8-h100-1k1k-tps.json", "output_throughput"),
    ("mpt7b-a100-bs1-per-user-decode-tps.json", "per_stream_throughput"),
    ("ev-sglang-dsv41-prefix-cache-hit-prefill-speedup.json", "prefill_throughput"),
])
def test_metrics_map(fixtures: Path, ledger_dir: Path, name: str, metric: str) -> None:
    raw = json.loads((fixtures / DIR / name).read_text())
    outcomes = import_files("inference-research", [fixtures / DIR / name], ledger_dir, options())
    got = results(benchmark(ledger_dir, next(o.record_id for o in outcomes if o.kind == "benchmark")))
    assert got == {(metric, "value", f"inference-research-{raw['metric']}"): raw["value"]}
    assert audit_errors(ledger_dir) == []


def test_all_importable_records_idempotent(fixtures: Path, ledger_dir: Path) -> None:
    paths = [p for p in sorted((fixtures / DIR).glob("*.json")) if "replay-inflates" not in p.name]
    import_files("inference-research", paths, ledger_dir, options())
    before = snapshot(ledger_dir)
    import_files("inference-research", paths, ledger_dir, options())
    assert snapshot(ledger_dir) == before
    assert audit_errors(ledger_dir) == []


def test_speedup_ratio_is_refused_and_nothing_written(fixtures: Path, ledger_dir: Path) -> None:
    good = fixtures / DIR / "mpt7b-a100-bs1-ttft-ms.json"
    ratio = fixtures / DIR / "ev-llamacpp-spec-bench-replay-inflates.json"
    with pytest.raises(ImportFormatError) as err:
        import_files("inference-research", [good, ratio], ledger_dir, options())
    assert (err.value.path, err.value.key) == (ratio, "metric")
    assert snapshot(ledger_dir) == {}
