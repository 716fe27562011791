"""The harness against real llama.cpp servers (xllamacpp) with generated tiny models: acceptance sources agree,
a paired run yields a comparison with a CI, and the ledger record passes the audit."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("xllamacpp", reason="needs the engine extra: pip install 'benchledger[engine]'")
pytest.importorskip("gguf", reason="needs the engine extra: pip install 'benchledger[engine]'")

import itertools

from benchledger.bench.demo import ensure_reference_records, free_port, launch_command
from benchledger.bench.load import LoadPoint
from benchledger.bench.outputs import read_requests, sha256_file
from benchledger.bench.record import RecordTarget
from benchledger.bench.run import ArmSpec, RunConfig
from benchledger.bench.session import run_session
from benchledger.bench.tinymodels import TinyModelShape, write_target_and_draft
from benchledger.bench.workload import RequestSpec, synthetic_prompts

pytestmark = pytest.mark.engine
SHAPE = TinyModelShape()


def run(tmp: Path, *, deep_scale: float = 0.0, unrelated: bool = False, synth: str | None = None,
        n: int = 12, conc: int = 2, record: RecordTarget | None = None, out: Path | None = None,
        input_tokens: int = 24):
    pair = write_target_and_draft(tmp / "models", shape=SHAPE, deep_scale=deep_scale, unrelated_draft=unrelated)
    bp, sp = free_port(), free_port()
    spec_cmd = launch_command(pair.target, sp, draft=pair.draft, k=4, parallel=conc)
    if synth:
        spec_cmd += f" --synth-rates {synth}"
    arms = [ArmSpec("base", f"http://127.0.0.1:{bp}", launch=launch_command(pair.target, bp, parallel=conc)),
            ArmSpec("spec", f"http://127.0.0.1:{sp}", spec_method="draft-model", spec_k=4, launch=spec_cmd)]
    cfg = RunConfig(arms=arms, request=RequestSpec(output_tokens=40, temperature=0.0, seed=7),
                    points=[LoadPoint(concurrency=conc)], prompts=[], num_prompts=n, out=out or tmp / "out",
                    warmup=1, timeout=60.0, round_size=conc,
                    prompt_builder=lambda url, aux: synthetic_prompts(n + 1, input_tokens, url, None, 0, aux))
    return cfg, run_session(cfg, launch_timeout=60.0, record=record)


def test_paired_run_acceptance_sources_agree_and_record_audits(tmp_path: Path) -> None:
    from benchledger.audit import run_audit
    from benchledger.ledger.store import Ledger

    ledger = tmp_path / "ledger"
    (ledger / "runs").mkdir(parents=True)
    ensure_reference_records(ledger, SHAPE)
    target = RecordTarget(ledger_root=ledger, record_id="test-llamacpp-paired", model="tiny-llama-random",
                          engine="llama-cpp", accelerator="cpu-host", accelerator_count=1, weights="f32")
    _cfg, session = run(tmp_path, record=target, out=ledger / "runs" / "test-llamacpp-paired")
    out = session.outputs[0]
    base, spec = out["summaries"]["base"], out["summaries"]["spec"]
    assert base["completed"] == spec["completed"] == 12 and base["failed"] == spec["failed"] == 0
    # exact input length from the server's tokenizer
    assert {r["input_tokens"] for r in read_requests(session.out / "spec")} == {24}
    # counters (windowed) and per-response timings count the same drafted / accepted tokens
    resp = spec["spec_decode_from_responses"]
    assert spec["spec_decode_counter_family"] == "llamacpp"
    assert spec["spec_decode_draft_tokens"] == resp["draft_tokens"] > 0
    assert spec["spec_decode_accepted_tokens"] == resp["accepted_tokens"]
    # draft = the target's first layer and the deeper layers add nothing: (nearly) everything is accepted
    assert spec["spec_decode_acceptance_rate"] > 0.9
    assert spec["spec_decode_acceptance_length"] > 4.0
    pp = spec["spec_decode_per_position_acceptance_rates"]
    assert len(pp) == 4 and all(a >= b for a, b in itertools.pairwise(pp))
    # llama.cpp streams one token per chunk: the consistency check says so instead of faking agreement
    assert spec["tokens_per_chunk"] == pytest.approx(1.0, abs=0.05)
    assert any(w.startswith("consistency") for w in spec["warnings"])
    assert base["spec_decode_draft_tokens"] is None
    comp = out["comparison"]["arms"]["spec"]
    assert comp["paired_rounds"] >= 3 and comp["output_throughput_speedup"]["ci95"] is not None
    # the ledger record: measured values pointing at the run folder with the raw file's hash; audit clean
    assert session.record_path is not None and session.record_path.exists()
    report = run_audit(Ledger.load(ledger))
    errors = [f for f in report.findings if f.severity == "error"]
    assert errors == []
    from benchledger.ledger.io import load_record

    rec = load_record(session.record_path)
    spec_arm = next(a for a in rec.arms if a.name == "spec")
    assert spec_arm.baseline == "base" and spec_arm.speculative is not None
    result = spec_arm.results[0]
    assert result.run == "runs/test-llamacpp-paired/spec"
    assert result.sha256 == sha256_file(session.out / "spec" / "requests.jsonl")
    assert spec_arm.acceptance is not None and spec_arm.acceptance.rate is not None
    # tampering with the raw data is caught
    with (session.out / "spec" / "requests.jsonl").open("a") as fh:
        fh.write("{}\n")
    codes = {f.code for f in run_audit(Ledger.load(ledger)).findings}
    assert "provenance.run-hash-mismatch" in codes
    shutil.rmtree(tmp_path / "models")


def test_unrelated_draft_is_rejected(tmp_path: Path) -> None:
    _, session = run(tmp_path, unrelated=True, n=4)
    spec = session.outputs[0]["summaries"]["spec"]
    assert spec["spec_decode_draft_tokens"] > 0
    assert spec["spec_decode_acceptance_rate"] < 0.25


def test_deeper_layers_lower_acceptance(tmp_path: Path) -> None:
    _, session = run(tmp_path, deep_scale=1.0, n=4)
    spec = session.outputs[0]["summaries"]["spec"]
    assert 0.0 < spec["spec_decode_acceptance_rate"] < 0.9
