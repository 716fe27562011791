"""guidellm importer: the real GuideLLM 0.8.1 report → one measured draft; TPOT definitions kept apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.unit.importers.support import audit_errors, benchmark, options, results, snapshot

from benchledger.errors import ImportFormatError
from benchledger.importers import import_files
from benchledger.schema import Unknown


def _import(path: Path, root: Path) -> str:
    outcomes = import_files("guidellm", [path], root, options())
    return next(o.record_id for o in outcomes if o.kind == "benchmark")


def test_values_and_definitions(fixtures: Path, ledger_dir: Path) -> None:
    raw = json.loads((fixtures / "guidellm" / "benchmarks.json").read_text())["benchmarks"][0]["metrics"]
    record = benchmark(ledger_dir, _import(fixtures / "guidellm" / "benchmarks.json", ledger_dir))
    got = results(record)
    assert got[("ttft", "median", "guidellm-ttft")] == raw["time_to_first_token_ms"]["successful"]["median"]
    # GuideLLM ITL = vLLM TPOT formula; GuideLLM TPOT includes TTFT and keeps its own definition.
    assert got[("tpot", "median", "guidellm-itl")] == raw["inter_token_latency_ms"]["successful"]["median"]
    incl = got[("tpot", "median", "guidellm-tpot-incl-ttft")]
    assert incl == raw["time_per_output_token_ms"]["successful"]["median"]
    assert incl > got[("tpot", "median", "guidellm-itl")]
    assert round(got[("output_throughput", "value", "guidellm-output-tokens-per-second-mean")], 1) == 1470.4
    # the per-request list is trimmed to 50 of 200: no exact conversion to per-request vLLM TPOT
    assert not any(d == "vllm-tpot" for _, _, d in got)
    assert "50 of 200" in record.body


def test_conditions(fixtures: Path, ledger_dir: Path) -> None:
    record = benchmark(ledger_dir, _import(fixtures / "guidellm" / "benchmarks.json", ledger_dir))
    w = record.workload
    assert getattr(w.concurrency, "value", None) == 16 and w.num_prompts == 200
    assert getattr(w.warmup, "value", None) == "none"
    assert getattr(w.input_tokens, "value", None) == "mean 86.015 (min 74, max 95)"
    assert getattr(w.output_tokens, "value", None) == 128
    assert getattr(w.ignore_eos, "value", None) is True
    assert isinstance(w.temperature, Unknown) and w.temperature.unknown == "source_omits"
    assert audit_errors(ledger_dir) == []


def test_exact_conversion_when_every_request_is_present(fixtures: Path, ledger_dir: Path, tmp_path: Path) -> None:
    """A report whose per-request list is complete: per-request vLLM TPOT is computed from its timings."""
    data = json.loads((fixtures / "guidellm" / "benchmarks.json").read_text())
    bench = data["benchmarks"][0]
    ok = bench["requests"]["successful"]
    bench["metrics"]["request_totals"]["successful"] = len(ok)  # make the (trimmed) list the whole run
    path = tmp_path / "complete.json"
    path.write_text(json.dumps(data))
    got = results(benchmark(ledger_dir, _import(path, ledger_dir)))
    per_request = sorted((r["info"]["timings"]["last_token_iteration"] - r["info"]["timings"]["first_token_iteration"])
                         * 1000 / (r["output_tokens"] - 1) for r in ok)
    mid = len(per_request) // 2
    assert got[("tpot", "median", "vllm-tpot")] == pytest.approx((per_request[mid - 1] + per_request[mid]) / 2)
    assert got[("tpot", "mean", "vllm-tpot")] == pytest.approx(sum(per_request) / len(per_request))
    # and it agrees with GuideLLM's own per-request ITL values
    assert got[("tpot", "mean", "vllm-tpot")] == pytest.approx(sum(r["inter_token_latency_ms"] for r in ok) / len(ok))


def test_idempotent_and_malformed(fixtures: Path, ledger_dir: Path, tmp_path: Path) -> None:
    first = _import(fixtures / "guidellm" / "benchmarks.json", ledger_dir)
    before = snapshot(ledger_dir)
    assert _import(fixtures / "guidellm" / "benchmarks.json", ledger_dir) == first
    assert snapshot(ledger_dir) == before
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"benchmarks": []}))
    with pytest.raises(ImportFormatError) as err:
        import_files("guidellm", [bad], ledger_dir, options())
    assert err.value.key == "benchmarks" and err.value.path == bad
    assert snapshot(ledger_dir) == before
