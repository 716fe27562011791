"""llama-bench-tables importer: a real git snapshot (built here from lines copied out of the
XiongjieDai/GPU-Benchmarks-on-LLM-Inference README) → one source storing the file whole, one experiment per
hardware × model size, one arm per (weight format, llama-bench test) cell."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.unit.importers.support import (
    assert_reimport_changes_nothing,
    audit_errors,
    benchmark,
    options,
    snapshot,
    snapshot_repo,
)

from benchledger.errors import ImportFormatError
from benchledger.importers import import_files
from benchledger.importers.llama_bench_tables import tables
from benchledger.importers.stored_files import stored_files
from benchledger.ledger.io import write_record
from benchledger.ledger.store import Ledger
from benchledger.schema import (
    Arm,
    Benchmark,
    Engine,
    Format,
    Known,
    ModelArch,
    Result,
    Source,
    Subject,
    Unknown,
    Workload,
)
from benchledger.schema.reference import Accelerator

URL = "https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference"
FIXTURE = "llama_bench_tables/README.md"


def _repo(tmp_path: Path, text: str) -> Path:
    return snapshot_repo(tmp_path, {"README.md": text}, URL, "2024-05-12T12:00:00Z")


@pytest.fixture
def readme(fixtures: Path) -> str:
    return (fixtures / FIXTURE).read_text(encoding="utf-8")


def _references(root: Path) -> None:
    u = Unknown(unknown="unchecked", note="test reference")
    for mid in ("llama-3-8b", "llama-3-70b"):
        write_record(root, ModelArch(kind="model", id=mid, title=mid, name=mid, hidden_size=u,
                                     layers_full_attention=u, num_heads=u, num_kv_heads=u, head_dim=u, vocab_size=u,
                                     params_total=u))
    write_record(root, Engine(kind="engine", id="llama-cpp", title="llama.cpp", name="llama.cpp"))
    for aid in ("nvidia-rtx-4080", "nvidia-rtx-3090"):
        write_record(root, Accelerator(kind="accelerator", id=aid, title=aid, name=aid, vendor="NVIDIA",
                                       memory_gb=u, memory_bandwidth_gbs=u))
    for fid in ("q4-k-m", "fp16"):
        write_record(root, Format(kind="format", id=fid, title=fid, name=fid, applies_to=["weights"],
                                  bits_per_element=u, bytes_per_param=u))


def _records(root: Path) -> dict[str, Benchmark]:
    return {r.title.split(" (")[0]: r for r in Ledger.load(root).typed("benchmark", Benchmark)}


def _arm(record: Benchmark, name: str) -> Arm:
    return next(a for a in record.arms if a.name == name)


def test_rows_become_arms_quoted_with_their_row(tmp_path: Path, readme: str, ledger_dir: Path) -> None:
    _references(ledger_dir)
    import_files("llama-bench-tables", [_repo(tmp_path, readme)], ledger_dir, options())
    records = _records(ledger_dir)
    assert sorted(records) == ["llama-bench, Llama 3 70B on 3090 24GB * 2", "llama-bench, Llama 3 8B on 3090 24GB * 2",
                               "llama-bench, Llama 3 8B on 4080 16GB"]  # the overview table is not imported
    rtx4080 = records["llama-bench, Llama 3 8B on 4080 16GB"]
    assert len(rtx4080.arms) == 8 + 6  # F16 tg 8192 and pp 8192 are OOM: nothing measured, no arm
    assert "F16 tg 8192: OOM" in rtx4080.body
    tg = _arm(rtx4080, "q4-k-m-tg1024")
    result = tg.results[0]
    assert (result.metric, result.stat, result.value, result.unit) == ("per_stream_throughput", "mean", 106.22, "tok/s")
    assert result.quote is not None and result.quote.startswith("| 4080 16GB       | 8B Q4_K_M  | 108.15")
    assert isinstance(tg.workload.output_tokens, Known) and tg.workload.output_tokens.value == 1024
    assert isinstance(tg.workload.input_tokens, Unknown)
    pp = _arm(rtx4080, "fp16-pp4096")
    assert (pp.results[0].metric, pp.results[0].value) == ("prefill_throughput", 4720.22)
    assert isinstance(pp.workload.input_tokens, Known) and pp.workload.input_tokens.value == 4096
    assert rtx4080.subject.accelerator == "nvidia-rtx-4080" and rtx4080.subject.engine == "llama-cpp"
    pair = records["llama-bench, Llama 3 70B on 3090 24GB * 2"].subject
    assert pair.model == "llama-3-70b" and pair.accelerator == "nvidia-rtx-3090"
    assert isinstance(pair.accelerator_count, Known) and pair.accelerator_count.value == 2
    assert isinstance(pair.accelerator_count.quote, str) and "3090 24GB * 2" in pair.accelerator_count.quote
    assert isinstance(pair.engine_version, Unknown) and pair.engine_version.unknown == "source_omits"
    assert isinstance(pair.host, Known) and "cuda: 12.1.1" in str(pair.host.value)
    source = Ledger.load(ledger_dir).get(rtx4080.sources[0])
    assert isinstance(source, Source)
    block = stored_files(source.body)["README.md"]
    assert block.intact and block.text == readme
    assert audit_errors(ledger_dir) == []


def test_reimport_changes_nothing(tmp_path: Path, readme: str, ledger_dir: Path) -> None:
    _references(ledger_dir)
    assert_reimport_changes_nothing("llama-bench-tables", [_repo(tmp_path, readme)], ledger_dir)


def test_malformed_rows_and_cells_are_reported_and_skipped(tmp_path: Path, readme: str, ledger_dir: Path) -> None:
    _references(ledger_dir)
    broken = readme.replace("| 3090 24GB * 2   | 8B Q4_K_M  | 111.67  |", "| 3090 24GB * 2   | 8B Q4_K_M  | 111.67 |"
                            " extra |").replace("| 47.72   |", "| n/a   |")
    import_files("llama-bench-tables", [_repo(tmp_path, broken)], ledger_dir, options())
    records = _records(ledger_dir)
    f16 = records["llama-bench, Llama 3 8B on 3090 24GB * 2"]
    assert [a.name for a in f16.arms if a.name.startswith("q4")] == []  # the 11-cell row is skipped whole
    assert "fp16-tg512" not in [a.name for a in f16.arms] and "F16 tg 512: cell 'n/a' is not a number" in f16.body
    assert len(f16.arms) == 7
    source = Ledger.load(ledger_dir).get(f16.sources[0])
    assert isinstance(source, Source) and "11 cells, the header has 10" in source.body
    assert "llama-bench, Llama 3 8B on 4080 16GB" in records  # the other rows still import
    assert audit_errors(ledger_dir) == []


def test_a_number_already_in_the_ledger_is_not_imported_twice(tmp_path: Path, readme: str, ledger_dir: Path) -> None:
    _references(ledger_dir)
    write_record(ledger_dir, Source(kind="source", id="hand", title="hand", url="https://example.org/readme",
                                    source_type="github-file", retrieved=options().retrieved, sha256="0" * 64,
                                    body="| 4080 16GB | 8B Q4_K_M | 108.15 |"))
    write_record(ledger_dir, Benchmark(
        kind="benchmark", id="hand-entered", title="hand", measured_by="third-party",
        subject=Subject(model="llama-3-8b", engine="llama-cpp", accelerator="nvidia-rtx-4080", accelerator_count=1),
        workload=Workload(),
        arms=[Arm(name="tg512", results=[Result(metric="per_stream_throughput", stat="mean", value=108.15,
                                                unit="tok/s", provenance="quoted", source="hand",
                                                quote="| 4080 16GB | 8B Q4_K_M | 108.15 |", basis="source-text")])],
        sources=["hand"]))
    import_files("llama-bench-tables", [_repo(tmp_path, readme)], ledger_dir, options())
    rtx4080 = _records(ledger_dir)["llama-bench, Llama 3 8B on 4080 16GB"]
    assert "q4-k-m-tg512" not in [a.name for a in rtx4080.arms] and "q4-k-m-tg1024" in [a.name for a in rtx4080.arms]
    assert "already in record `hand-entered`" in rtx4080.body
    assert benchmark(ledger_dir, "hand-entered").arms[0].results[0].value == 108.15  # left as it was


def test_a_snapshot_without_llama_bench_tables_is_an_error(tmp_path: Path, ledger_dir: Path) -> None:
    before = snapshot(ledger_dir)
    with pytest.raises(ImportFormatError, match="no llama-bench table"):
        import_files("llama-bench-tables", [_repo(tmp_path, "# Nothing\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")],
                     ledger_dir, options())
    assert snapshot(ledger_dir) == before


def test_headings_inside_code_fences_are_not_headings() -> None:
    text = ("### LLaMA 3\n\n```\n# Download a model\n```\n\n| GPU | Model | tg 128 |\n|---|---|---|\n"
            "| 4090 24GB | 8B Q4_K_M | 1.0 |\n")
    (table,) = tables(text)
    assert table.headings == ["### LLaMA 3"] and table.tests == {2: ("tg", 128)} and table.wide

