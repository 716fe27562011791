"""llama-bench-tables importer, eval-rate tables: a real git snapshot (built here from lines copied out of the
geerlingguy/ai-benchmarks README) → one experiment per row, engine from the footnote a row is marked with."""

from __future__ import annotations

from pathlib import Path

from tests.unit.importers.support import audit_errors, options, snapshot_repo

from benchledger.importers import import_files
from benchledger.importers.llama_bench_eval import device
from benchledger.ledger.io import write_record
from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark, Engine, Known, ModelArch, Source, Unknown
from benchledger.schema.reference import Accelerator

URL = "https://github.com/geerlingguy/ai-benchmarks"
FIXTURE = "llama_bench_tables/ai-benchmarks-README.md"


def _repo(tmp_path: Path, text: str) -> Path:
    return snapshot_repo(tmp_path, {"README.md": text}, URL, "2024-05-12T12:00:00Z")


def _references(root: Path) -> None:
    u = Unknown(unknown="unchecked", note="test reference")
    write_record(root, ModelArch(kind="model", id="llama-3.2-3b", title="m", name="m", hidden_size=u,
                                 layers_full_attention=u, num_heads=u, num_kv_heads=u, head_dim=u, vocab_size=u,
                                 params_total=u))
    write_record(root, Engine(kind="engine", id="llama-cpp", title="llama.cpp", name="llama.cpp"))
    for aid in ("nvidia-rtx-4090", "raspberry-pi-5", "nvidia-rtx-a2000"):
        write_record(root, Accelerator(kind="accelerator", id=aid, title=aid, name=aid, vendor="NVIDIA",
                                       memory_gb=u, memory_bandwidth_gbs=u))


def _by_host(root: Path) -> dict[str, Benchmark]:
    out = {}
    for r in Ledger.load(root).typed("benchmark", Benchmark):
        assert isinstance(r.subject.host, Known)
        out[str(r.subject.host.value)] = r
    return out


def test_each_row_is_one_experiment_with_its_engine_and_device(tmp_path: Path, fixtures: Path,
                                                                ledger_dir: Path) -> None:
    _references(ledger_dir)
    import_files("llama-bench-tables", [_repo(tmp_path, (fixtures / FIXTURE).read_text(encoding="utf-8"))],
                 ledger_dir, options())
    records = _by_host(ledger_dir)
    assert sorted(records) == ["Intel 265K Custom PC (Nvidia RTX 3060)", "Intel 265K Custom PC (Nvidia RTX 4090)",
                               "Minisforum MS-R1 (Nvidia RTX A2000)", "Pi 5 - 16GB", "Pi CM5 - 16GB (Nvidia RTX 4090)"]
    vulkan = records["Pi CM5 - 16GB (Nvidia RTX 4090)"].subject
    assert (vulkan.model, vulkan.engine, vulkan.accelerator) == ("llama-3.2-3b", "llama-cpp", "nvidia-rtx-4090")
    assert isinstance(vulkan.engine_flags, Known) and vulkan.engine_flags.quote is not None
    assert "tested using `llama.cpp` with Vulkan" in vulkan.engine_flags.quote
    plain = records["Intel 265K Custom PC (Nvidia RTX 4090)"]
    assert plain.subject.engine == "unknown-engine" and "not stated for this row" in plain.body
    result = plain.arms[0].results[0]
    assert (result.metric, result.value, result.unit) == ("per_stream_throughput", 334.67, "tok/s")
    assert records["Pi 5 - 16GB"].subject.accelerator == "raspberry-pi-5"  # a CPU row: the system's processor
    assert records["Minisforum MS-R1 (Nvidia RTX A2000)"].subject.accelerator == "nvidia-rtx-a2000"
    assert records["Intel 265K Custom PC (Nvidia RTX 3060)"].subject.accelerator == "unknown-accelerator"
    assert isinstance(plain.subject.weights, Unknown)
    source = Ledger.load(ledger_dir).get(plain.sources[0])
    assert isinstance(source, Source) and "Raspberry Pi CM5 Cluster (10x 16GB): a cluster of several nodes" in source.body
    assert audit_errors(ledger_dir) == []


def test_device_prefers_the_parenthesised_gpu() -> None:
    assert device("HiFive Premier P550 (AMD RX 580)") == "amd-rx-580"
    assert device("HiFive Premier P550 (4-core RISC-V)") == "sifive-hifive-premier-p550"
    assert device("M1 Max Mac Studio (10 core - 64GB)") == "apple-m1-max"
    assert device("Some Unknown Box") is None
