"""device-speed-tables importer: a real git snapshot (built here from liltom-eth/llama2-webui's docs/performance.md,
copied whole) → one source storing the file whole, one experiment per device × model, one arm per row."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.unit.importers.support import (
    assert_reimport_changes_nothing,
    audit_errors,
    options,
    snapshot,
    snapshot_repo,
)

from benchledger.errors import ImportFormatError
from benchledger.importers import import_files
from benchledger.importers.device_speed_tables import device_tables
from benchledger.importers.stored_files import stored_files
from benchledger.ledger.io import write_record
from benchledger.ledger.store import Ledger
from benchledger.schema import Arm, Benchmark, Engine, Format, Known, ModelArch, Source, Unknown
from benchledger.schema.reference import Accelerator

URL = "https://github.com/liltom-eth/llama2-webui"
FIXTURE = "device_speed_tables/performance.md"
ACCELERATORS = ("nvidia-rtx-2080-ti", "nvidia-gtx-1660-super", "nvidia-t4", "intel-core-i7-8700", "intel-core-i7-9700",
                "amd-ryzen-9-5900hs", "apple-m2", "apple-m1-pro")


def _repo(tmp_path: Path, files: dict[str, str]) -> Path:
    return snapshot_repo(tmp_path, files, URL, "2024-02-13T12:00:00Z")


@pytest.fixture
def performance(fixtures: Path) -> str:
    return (fixtures / FIXTURE).read_text(encoding="utf-8")


def _references(root: Path) -> None:
    u = Unknown(unknown="unchecked", note="test reference")
    write_record(root, ModelArch(kind="model", id="llama-2-7b", title="Llama 2 7B", name="Llama 2 7B", hidden_size=u,
                                 layers_full_attention=u, num_heads=u, num_kv_heads=u, head_dim=u, vocab_size=u,
                                 params_total=u))
    write_record(root, Engine(kind="engine", id="llama-cpp", title="llama.cpp", name="llama.cpp"))
    for aid in ACCELERATORS:
        write_record(root, Accelerator(kind="accelerator", id=aid, title=aid, name=aid, vendor="NVIDIA",
                                       memory_gb=u, memory_bandwidth_gbs=u))
    for fid in ("q4-0", "q8-0", "int4", "int8"):
        write_record(root, Format(kind="format", id=fid, title=fid, name=fid, applies_to=["weights"],
                                  bits_per_element=u, bytes_per_param=u))


def _records(root: Path) -> dict[str, Benchmark]:
    return {r.subject.accelerator: r for r in Ledger.load(root).typed("benchmark", Benchmark)}


def _arm(record: Benchmark, name: str) -> Arm:
    return next(a for a in record.arms if a.name == name)


def test_rows_become_arms_quoted_with_their_row(tmp_path: Path, performance: str, ledger_dir: Path) -> None:
    _references(ledger_dir)
    import_files("device-speed-tables", [_repo(tmp_path, {"docs/performance.md": performance})], ledger_dir, options())
    records = _records(ledger_dir)
    assert sorted(records) == sorted([*ACCELERATORS, "unknown-accelerator"])  # the vServer names no processor
    m2 = records["apple-m2"]
    assert [a.name for a in m2.arms] == ["q2-k-cpu", "q2-k-metal", "q4-0-cpu", "q4-0-metal"]
    metal = _arm(m2, "q4-0-metal")
    speed, memory = metal.results
    assert (speed.metric, speed.stat, speed.value, speed.unit) == ("per_stream_throughput", "value", 12.6, "tok/s")
    assert speed.quote == "| llama-2-7b-chat.ggmlv3.q4_0 | 4 bit | Apple M2 Metal | 5.4 GB RAM | 12.60 | 0.10 |"
    assert (memory.metric, memory.value, memory.unit) == ("memory", 5.4, "GB")
    assert metal.subject is not None and isinstance(metal.subject.weights, Known)
    assert metal.subject.weights.value == "q4-0"
    q2k = _arm(m2, "q2-k-cpu").subject
    assert q2k is not None and isinstance(q2k.weights, Unknown)  # no q2-k format record in this ledger
    assert m2.subject.engine == "llama-cpp" and m2.subject.model == "llama-2-7b"
    assert isinstance(m2.workload.concurrency, Unknown) and m2.workload.concurrency.unknown == "source_omits"
    gpu = records["nvidia-rtx-2080-ti"]
    assert gpu.subject.engine == "unknown-engine" and "the file names no engine" in gpu.body
    assert {a.name: a.results[0].value for a in gpu.arms} == {"8bit": 3.76, "gptq-4bit": 18.85}
    assert "Intel vServer 4 threads, eth services" in records["unknown-accelerator"].body
    source = Ledger.load(ledger_dir).get(m2.sources[0])
    assert isinstance(source, Source)
    block = stored_files(source.body)["docs/performance.md"]
    assert block.intact and block.text == performance
    assert "no device or no speed stated" in source.body  # the 16 bit rows with no numbers
    assert audit_errors(ledger_dir) == []


def test_reimport_changes_nothing(tmp_path: Path, performance: str, ledger_dir: Path) -> None:
    _references(ledger_dir)
    assert_reimport_changes_nothing("device-speed-tables", [_repo(tmp_path, {"docs/performance.md": performance})], ledger_dir)


def test_a_row_restated_in_another_file_is_imported_once(tmp_path: Path, performance: str, ledger_dir: Path) -> None:
    _references(ledger_dir)
    readme = ("## Benchmark\n\n| Model | Precision | Device | RAM / GPU VRAM | Speed (tokens/sec) | load time (s) |\n"
              "| --- | --- | --- | --- | --- | --- |\n"
              "| llama-2-7b-chat.ggmlv3.q4_0 | 4 bit     | Apple M2 Metal     | 5.4 GB RAM     | 12.60 | 0.10 |\n")
    import_files("device-speed-tables", [_repo(tmp_path, {"docs/performance.md": performance, "README.md": readme})],
                 ledger_dir, options())
    sources = list(Ledger.load(ledger_dir).typed("source", Source))
    assert len(sources) == 1 and "docs/performance.md" in sources[0].title  # the README adds no row: no source
    speeds = [a.results[0].value for a in _records(ledger_dir)["apple-m2"].arms]
    assert speeds.count(12.6) == 1


def test_malformed_rows_are_reported_and_skipped(tmp_path: Path, performance: str, ledger_dir: Path) -> None:
    _references(ledger_dir)
    broken = performance.replace("| AMD Ryzen 9 5900HS | 4.1 GB RAM | 6.01 | 0.15 |",
                                 "| AMD Ryzen 9 5900HS | 4.1 GB RAM | 6.01 | 0.15 | extra |").replace(
        "| Intel i7-9700 | 4.8 GB RAM   | 4.2  ", "| Intel i7-9700 | 4.8 GB RAM   | n/a  ")
    import_files("device-speed-tables", [_repo(tmp_path, {"docs/performance.md": broken})], ledger_dir, options())
    records = _records(ledger_dir)
    assert "amd-ryzen-9-5900hs" not in records
    assert [a.name for a in records["intel-core-i7-9700"].arms] == ["q8-0-cpu"]
    source = Ledger.load(ledger_dir).get(records["apple-m2"].sources[0])
    assert isinstance(source, Source) and "7 cells, the header has 6" in source.body
    assert "| Intel i7-9700 | 4.8 GB RAM   | n/a" in source.body.split("`docs/performance.md` · git blob")[0]
    assert audit_errors(ledger_dir) == []


def test_a_snapshot_without_device_tables_is_an_error(tmp_path: Path, ledger_dir: Path) -> None:
    before = snapshot(ledger_dir)
    with pytest.raises(ImportFormatError, match="no table with a Device column"):
        import_files("device-speed-tables", [_repo(tmp_path, {"README.md": "| a | b |\n|---|---|\n| 1 | 2 |\n"})],
                     ledger_dir, options())
    assert snapshot(ledger_dir) == before


def test_tables_need_a_device_and_a_speed_column(performance: str) -> None:
    found = device_tables(performance)
    assert [(t.heading, t.columns[t.speed], t.columns[t.memory] if t.memory is not None else None) for t in found] == [
        ("Performance on Nvidia GPU", "Speed (tokens/sec)", "GPU VRAM"),
        ("Performance on CPU / OpenBLAS / cuBLAS / CLBlast / Metal", "Speed (tokens/sec)", "RAM / GPU VRAM")]
    assert device_tables("| Device | load time (s) |\n|---|---|\n| x | 1 |\n") == []


def test_a_q2_k_file_names_the_q2_k_format(tmp_path: Path, performance: str, ledger_dir: Path) -> None:
    """The GGML file type ``q2_K`` resolves to the ``q2-k`` format record when the ledger has one."""
    _references(ledger_dir)
    u = Unknown(unknown="unchecked", note="test reference")
    write_record(ledger_dir, Format(kind="format", id="q2-k", title="q2-k", name="Q2_K", applies_to=["weights"],
                                    bits_per_element=u, bytes_per_param=u))
    import_files("device-speed-tables", [_repo(tmp_path, {"docs/performance.md": performance})], ledger_dir, options())
    q2k = _arm(_records(ledger_dir)["apple-m2"], "q2-k-cpu").subject
    assert q2k is not None and isinstance(q2k.weights, Known)
    assert q2k.weights.value == "q2-k"
    assert q2k.weights.quote == "| llama-2-7b-chat.ggmlv3.q2_K | 2 bit | Apple M2 CPU | 4.5 GB RAM | 11.10 | 0.10 |"
    assert audit_errors(ledger_dir) == []
