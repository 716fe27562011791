"""Round trip: a real `benchledger bench` run (fake OpenAI server, real sockets) → summary.json → import → same numbers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.openai_server import FakeConfig, FakeServer

from benchledger.audit import run_audit
from benchledger.bench.load import LoadPoint
from benchledger.bench.record import RecordTarget
from benchledger.bench.run import ArmSpec, RunConfig
from benchledger.bench.session import run_session
from benchledger.bench.workload import Prompt, RequestSpec
from benchledger.importers import import_files
from benchledger.importers.common import ImportOptions
from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark

from cli_runner import run_cli

PROMPTS = [Prompt(text=f"prompt {i}", input_tokens=None, input_tokens_source="test") for i in range(16)]
KEYS = {("output_throughput", "value"): "output_throughput", ("ttft", "median"): "median_ttft_ms",
        ("tpot", "median"): "median_tpot_after_first_chunk_ms", ("itl", "median"): "median_itl_ms",
        ("itl_per_token", "median"): "median_itl_per_token_ms", ("completed_requests", "value"): "completed"}


def test_bench_summary_imports_back_to_the_same_numbers(tmp_path: Path) -> None:
    with FakeServer(FakeConfig(ttft=0.01, step=0.003, k=3, accept_pattern=[3, 1, 2, 0])) as spec:
        cfg = RunConfig(arms=[ArmSpec("spec", spec.url, spec_method="mtp", spec_k=3)],
                        request=RequestSpec(output_tokens=16, extra={}), points=[LoadPoint(concurrency=2)],
                        prompts=PROMPTS, num_prompts=8, out=tmp_path / "out", warmup=1, timeout=10.0, round_size=2)
        run_session(cfg)
    (path,) = sorted((tmp_path / "out").rglob("summary.json"))
    summary = json.loads(path.read_text())
    root = tmp_path / "ledger"
    root.mkdir()
    outcomes = import_files("benchledger-run", [path], root, ImportOptions())
    record = Ledger.load(root).get(next(o.record_id for o in outcomes if o.kind == "benchmark"))
    assert isinstance(record, Benchmark) and record.measured_by == "benchledger"
    got = {(r.metric, r.stat): r.value for r in record.arms[0].results}
    for key, summary_key in KEYS.items():
        assert got[key] == summary[summary_key], key
    acc = record.arms[0].acceptance
    assert acc is not None and acc.rate is not None and acc.mean_length is not None
    assert acc.rate.value == summary["spec_decode_acceptance_rate"] and acc.rate.unit == "fraction"
    assert acc.mean_length.value == summary["spec_decode_acceptance_length"]
    assert getattr(record.workload.warmup, "value", None) == f"{summary['warmup_requests']} requests"
    assert [f for f in run_audit(Ledger.load(root)).findings if f.severity == "error"] == []


def test_bench_record_and_import_give_the_same_results(tmp_path: Path) -> None:
    """One mapping from a summary to results (importers/benchledger_run.py) serves both paths."""
    root = tmp_path / "ledger"
    init = run_cli("init", str(root), "--with-reference")
    assert init.exit_code == 0, init.stderr
    with FakeServer(FakeConfig(ttft=0.01, step=0.003, k=3, accept_pattern=[3, 1, 2, 0])) as spec:
        cfg = RunConfig(arms=[ArmSpec("spec", spec.url, spec_method="mtp", spec_k=3)],
                        request=RequestSpec(output_tokens=16, extra={}), points=[LoadPoint(concurrency=2)],
                        prompts=PROMPTS, num_prompts=8, out=tmp_path / "out", warmup=1, timeout=10.0, round_size=2)
        target = RecordTarget(ledger_root=root, record_id="rec-run", model="gemma-3-27b", engine="llama-cpp",
                              accelerator="nvidia-b200")
        session = run_session(cfg, record=target)
    assert session.record_path is not None
    recorded = Ledger.load(root).get("rec-run")
    assert isinstance(recorded, Benchmark)
    summary_path = root / "runs" / "rec-run" / "spec" / "summary.json"
    other = tmp_path / "imported"
    other.mkdir()
    outcomes = import_files("benchledger-run", [summary_path], other, ImportOptions())
    imported = Ledger.load(other).get(next(o.record_id for o in outcomes if o.kind == "benchmark"))
    assert isinstance(imported, Benchmark)

    def shape(arm: Any) -> tuple[Any, Any]:
        results = sorted((r.metric, r.stat, r.value, r.unit, r.definition) for r in arm.results)
        acc = arm.acceptance
        return results, (acc.rate.value, acc.mean_length.value, [q.value for q in acc.per_position], acc.definition)

    assert shape(recorded.arms[0]) == shape(imported.arms[0])
    assert len(recorded.arms[0].results) >= 20
