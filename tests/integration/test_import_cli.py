"""The import CLI end to end: `benchledger import …` and `benchledger ingest-table` on real fixtures."""

from __future__ import annotations

from pathlib import Path

from benchledger.audit import run_audit
from benchledger.ledger.store import Ledger

from cli_runner import Result, run_cli

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "fixtures"


def _cli(*args: str) -> Result:
    return run_cli(*args)


def test_import_every_format_then_reimport_and_audit(tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    root.mkdir()
    runs = [
        ("vllm-bench", [FIXTURES / "vllm" / "vllm-bench-serve.json"]),
        ("aiperf", [FIXTURES / "aiperf"]),
        ("guidellm", [FIXTURES / "guidellm" / "benchmarks.json"]),
        ("mlperf", [FIXTURES / "mlperf" / "summary.csv"]),
        ("autobench", sorted((FIXTURES / "autobench").glob("*nvfp4-vllm*c1.md"))),
        ("inference-research", [FIXTURES / "inference-research" / "benchmarks" / "mpt7b-a100-bs1-ttft-ms.json"]),
    ]
    for fmt, paths in runs:
        done = _cli("import", fmt, *map(str, paths), "--ledger", str(root))
        assert done.exit_code == 0, done.stderr
        assert "written" in done.stdout
        again = _cli("import", fmt, *map(str, paths), "--ledger", str(root))
        assert again.exit_code == 0 and "written" not in again.stdout and "unchanged" in again.stdout
    ledger = Ledger.load(root)
    assert len(ledger.of_kind("benchmark")) == 10
    assert [f for f in run_audit(ledger).findings if f.severity == "error"] == []
    audit = _cli("audit", "--ledger", str(root))
    assert audit.exit_code == 0, audit.stdout + audit.stderr


def test_dry_run_and_errors_write_nothing(tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    root.mkdir()
    dry = _cli("import", "vllm-bench", str(FIXTURES / "vllm" / "vllm-bench-serve.json"), "--ledger", str(root),
               "--dry-run", "--id-prefix", "my-run")
    assert dry.exit_code == 0 and "would-write" in dry.stdout and "my-run-" in dry.stdout
    bad = _cli("import", "aiperf", str(FIXTURES / "guidellm" / "benchmarks.json"), "--ledger", str(root))
    assert bad.exit_code == 2
    assert "benchmarks.json: aiperf_version:" in bad.stderr
    unknown = _cli("import", "nope", "x", "--ledger", str(root))
    assert unknown.exit_code != 0
    assert not any(p.is_file() for p in root.rglob("*"))


def test_ingest_table_cli(tmp_path: Path) -> None:
    root = tmp_path / "ledger"
    root.mkdir()
    assert _cli("import", "mlperf", str(FIXTURES / "mlperf" / "summary.csv"), "--ledger", str(root)).exit_code == 0
    source = Ledger.load(root).of_kind("source")[0].id
    done = _cli("ingest-table", source, "--ledger", str(root))
    assert done.exit_code == 2 and "no Markdown table" in done.stderr
