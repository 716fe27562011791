"""measured.incomplete flags an interrupted run's record; secrets.suspected reads run folders too."""

from __future__ import annotations

from pathlib import Path

from benchledger.audit import run_audit
from benchledger.audit.finding import Finding
from benchledger.ledger import Ledger

from ledger_builder import benchmark, reference_records, source, write_all


def findings(root: Path, code: str) -> list[Finding]:
    return [f for f in run_audit(Ledger.load(root)).findings if f.code == code]


def test_an_interrupted_run_record_is_flagged_exactly(tmp_path: Path) -> None:
    complete = write_all(tmp_path / "a", [source(), *reference_records(), benchmark()])
    assert findings(complete, "measured.incomplete") == []
    data = benchmark()
    data["complete"] = False
    root = write_all(tmp_path / "b", [source(), *reference_records(), data])
    assert findings(root, "measured.incomplete") == [Finding(
        "measured.incomplete", "warning", "test-bench", "complete",
        "the run was interrupted before its end (complete: false): its numbers cover part of the planned "
        "requests; rerun, or say so wherever they are quoted")]


def test_a_secret_in_a_run_folder_is_an_error(tmp_path: Path) -> None:
    root = write_all(tmp_path / "ledger", [source(), *reference_records(), benchmark()])
    run = root / "runs" / "bench-1" / "base"
    run.mkdir(parents=True)
    (run / "requests.jsonl").write_text('{"error": "HTTP 401: bad key"}\n')
    assert findings(root, "secrets.suspected") == []
    (root / "runs" / "bench-1" / "engine-base.log").write_text("argv: ['serve', '--hf-token', "
                                                               "'hf_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789']\n")
    found = findings(root, "secrets.suspected")
    assert [(f.severity, f.record, f.field) for f in found] == [("error", "bench-1", "runs/bench-1/engine-base.log")]
    assert "Hugging Face token (hf_AbCdE…)" in found[0].message
