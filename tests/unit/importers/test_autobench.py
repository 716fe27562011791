"""autobench importer: the 18 real Qwen3.8-27B config pages → two quoted experiments (NVFP4 sweep, FP8 pair)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.unit.importers.support import (
    audit_errors,
    benchmark,
    options,
    results,
    snapshot,
)

from benchledger.errors import ImportFormatError
from benchledger.importers import import_files
from benchledger.ledger.store import Ledger
from benchledger.schema import Source, Unknown

from ledger_builder import write_import_reference


def _pages(fixtures: Path) -> list[Path]:
    return sorted((fixtures / "autobench").glob("*.md"))


def _nvfp4(root: Path) -> str:
    return next(r.id for r in Ledger.load(root).of_kind("benchmark") if "nvfp4" in r.id)


def test_sweep_values_quoted_from_pages(fixtures: Path, ledger_dir: Path) -> None:
    import_files("autobench", _pages(fixtures), ledger_dir, options())
    record = benchmark(ledger_dir, _nvfp4(ledger_dir))
    assert len(record.arms) == 16
    mtp1 = results(record, "mtp-c1")
    assert mtp1[("output_throughput", "value", "autobench-decode-toks")] == 21.35
    assert mtp1[("prefill_throughput", "value", "autobench-prefill-toks")] == 41.91
    assert mtp1[("tpot", "median", "autobench-tpot")] == 44.6
    assert mtp1[("ttft", "median", "autobench-ttft")] == 264.2
    assert mtp1[("completed_requests", "value", "autobench-completed")] == 83
    assert results(record, "c1")[("tpot", "median", "autobench-tpot")] == 88.5
    assert results(record, "c128")[("output_throughput", "value", "autobench-decode-toks")] == 346.23
    arm = next(a for a in record.arms if a.name == "mtp-c1")
    assert arm.baseline == "c1"
    assert arm.speculative is not None and arm.speculative.method == "mtp"
    assert getattr(arm.speculative.k, "value", None) == 3
    acc = arm.acceptance
    assert acc is not None and acc.rate is not None and acc.mean_length is not None
    assert (acc.rate.value, acc.rate.unit, acc.mean_length.value) == (57.0, "%", 2.8)
    assert [q.value for q in acc.per_position] == [0.78, 0.56, 0.44]
    # every quote is verbatim text of the page it cites
    sources = {s.id: s for s in Ledger.load(ledger_dir).of_kind("source") if isinstance(s, Source)}
    for a in record.arms:
        for r in a.results:
            assert r.quote is not None and r.quote in sources[r.source or ""].body


def test_spec_acceptance_free_text_variants(fixtures: Path, ledger_dir: Path) -> None:
    import_files("autobench", _pages(fixtures), ledger_dir, options())
    record = benchmark(ledger_dir, _nvfp4(ledger_dir))
    acc = {a.name: a.acceptance for a in record.arms if a.acceptance}
    c128 = acc["mtp-c128"]
    assert c128 is not None and c128.rate is not None and c128.mean_length is not None
    assert (c128.rate.value, c128.mean_length.value) == (55.0, 2.64)
    assert c128.window == "last-20 samples 48.7–60.6%, median 54.1%"
    c32 = acc["mtp-c32"]
    assert c32 is not None and c32.mean_length is not None and c32.mean_length.value == 2.6
    assert [q.value for q in c32.per_position] == [0.75, 0.51, 0.36]


def test_conditions_omitted_and_stated(fixtures: Path, ledger_dir: Path) -> None:
    import_files("autobench", _pages(fixtures), ledger_dir, options())
    record = benchmark(ledger_dir, _nvfp4(ledger_dir))
    w, s = record.workload, record.subject
    for cond in (w.warmup, w.input_tokens, w.temperature, s.accelerator_count):
        assert isinstance(cond, Unknown) and cond.unknown == "source_omits"
    assert getattr(w.max_model_len, "value", None) == 65536
    assert getattr(w.num_prompts, "value", None) == 1000 and getattr(w.max_seconds, "value", None) == 900
    assert isinstance(s.engine_version, Unknown)
    assert isinstance(s.weights, Unknown) and s.weights.unknown == "unchecked" and "NVFP4" in s.weights.note
    assert s.accelerator == "unknown-accelerator"
    assert audit_errors(ledger_dir) == []


def test_references_resolved_from_a_tiny_ledger(fixtures: Path, ledger_dir: Path) -> None:
    write_import_reference(ledger_dir)
    outcomes = import_files("autobench", _pages(fixtures)[:2], ledger_dir, options(accelerator="nvidia-gb10"))
    assert not any(o.record_id.startswith("unknown-") for o in outcomes)
    record = benchmark(ledger_dir, next(o.record_id for o in outcomes if o.kind == "benchmark"))
    assert (record.subject.model, record.subject.engine, record.subject.accelerator) == (
        "qwen3-8-27b", "vllm", "nvidia-gb10")
    assert [a.name for a in record.arms] == ["c32", "mtp-c32"]
    assert audit_errors(ledger_dir) == []


def test_idempotent(fixtures: Path, ledger_dir: Path) -> None:
    import_files("autobench", _pages(fixtures), ledger_dir, options())
    before = snapshot(ledger_dir)
    outcomes = import_files("autobench", _pages(fixtures), ledger_dir, options())
    assert {o.status for o in outcomes} == {"unchanged"}
    assert snapshot(ledger_dir) == before


def test_pending_page_and_bad_yaml_write_nothing(fixtures: Path, ledger_dir: Path, tmp_path: Path) -> None:
    text = (fixtures / "autobench" / "qwen3-8-27b-nvfp4-vllm-c1.md").read_text()
    pending = tmp_path / "pending.md"
    pending.write_text(text.replace("status: done", "status: pending"))
    with pytest.raises(ImportFormatError) as err:
        import_files("autobench", [*_pages(fixtures), pending], ledger_dir, options())
    assert (err.value.path, err.value.key) == (pending, "status")
    broken = tmp_path / "broken.md"
    broken.write_text(text.replace("concurrency: 1\n", "concurrency: [1\n"))
    with pytest.raises(ImportFormatError) as err:
        import_files("autobench", [broken], ledger_dir, options())
    assert err.value.path == broken and err.value.key.startswith("line ")
    assert snapshot(ledger_dir) == {}
