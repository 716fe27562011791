"""mlperf importer: a real MLPerf Inference v4.1 summary.csv (GigaComputing) → quoted experiments per benchmark."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.unit.importers.support import audit_errors, options, results, snapshot

from benchledger.errors import ImportFormatError
from benchledger.importers import import_files
from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark, Unknown

CSV = "mlperf/summary.csv"


def _records(root: Path) -> dict[str, Benchmark]:
    out = {}
    for r in Ledger.load(root).of_kind("benchmark"):
        assert isinstance(r, Benchmark)
        out[r.title.split(", ")[1].split(" (")[0]] = r
    return out


def test_llm_rows_become_scenario_arms(fixtures: Path, ledger_dir: Path) -> None:
    import_files("mlperf", [fixtures / CSV], ledger_dir, options())
    records = _records(ledger_dir)
    assert sorted(records) == ["gptj-99", "gptj-99.9", "llama2-70b-99", "llama2-70b-99.9", "mixtral-8x7b"]
    llama = records["llama2-70b-99"]
    assert [a.name for a in llama.arms] == ["server", "offline"]
    assert results(llama, "offline") == {("output_throughput", "value", "mlperf-result_tokens_per_second"): 31263.8}
    assert results(llama, "server") == {
        ("output_throughput", "value", "mlperf-result_completed_tokens_per_second"): 29715.3}
    assert results(records["gptj-99"], "offline") == {
        ("request_throughput", "value", "mlperf-offline-samples-per-second"): 20041.3}
    offline = next(a for a in llama.arms if a.name == "offline")
    assert offline.results[0].quote is not None and offline.results[0].quote.startswith("GigaComputing,")
    assert "Units cell `Samples/s`" in offline.note
    assert getattr(llama.subject.accelerator_count, "value", None) == 8
    assert isinstance(llama.workload.input_tokens, Unknown) and llama.workload.input_tokens.unknown == "source_omits"
    assert "resnet50" in llama.body or "resnet" in llama.body
    assert audit_errors(ledger_dir) == []


def test_idempotent(fixtures: Path, ledger_dir: Path) -> None:
    import_files("mlperf", [fixtures / CSV], ledger_dir, options())
    before = snapshot(ledger_dir)
    import_files("mlperf", [fixtures / CSV], ledger_dir, options())
    assert snapshot(ledger_dir) == before


def test_bad_rows_name_line_and_column(fixtures: Path, ledger_dir: Path, tmp_path: Path) -> None:
    lines = (fixtures / CSV).read_text().splitlines(keepends=True)
    bad = tmp_path / "bad.csv"
    bad.write_text("".join([lines[0], lines[5].replace(",29715.3,", ",n/a,")]))
    with pytest.raises(ImportFormatError) as err:
        import_files("mlperf", [bad], ledger_dir, options())
    assert err.value.path == bad and err.value.key == "line 2: Result"
    nocol = tmp_path / "nocol.csv"
    nocol.write_text("".join(lines).replace("Scenario,", "Scen,", 1))
    with pytest.raises(ImportFormatError) as err:
        import_files("mlperf", [nocol], ledger_dir, options())
    assert err.value.key == "Scenario"
    assert snapshot(ledger_dir) == {}
