"""device-count-tables importer: a real git snapshot (built here from the "Measurements" section of
b4rtaz/distributed-llama's README at aec85b9, copied verbatim) → one source storing the file whole, one experiment
per table × model row, one arm per cluster size."""

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
from benchledger.importers.device_count_tables import count_tables
from benchledger.importers.stored_files import stored_files
from benchledger.ledger.io import write_record
from benchledger.ledger.store import Ledger
from benchledger.schema import Arm, Benchmark, Engine, Format, Known, ModelArch, Source, Unknown
from benchledger.schema.reference import Accelerator

URL = "https://github.com/b4rtaz/distributed-llama"
FIXTURE = "device_count_tables/README.md"


def _repo(tmp_path: Path, text: str) -> Path:
    return snapshot_repo(tmp_path, {"README.md": text}, URL, "2025-02-15T12:00:00Z")


@pytest.fixture
def readme(fixtures: Path) -> str:
    return (fixtures / FIXTURE).read_text(encoding="utf-8")


def _references(root: Path) -> None:
    u = Unknown(unknown="unchecked", note="test reference")
    for mid in ("llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b"):
        write_record(root, ModelArch(kind="model", id=mid, title=mid, name=mid, hidden_size=u,
                                     layers_full_attention=u, num_heads=u, num_kv_heads=u, head_dim=u, vocab_size=u,
                                     params_total=u))
    write_record(root, Engine(kind="engine", id="distributed-llama", title="Distributed Llama", name="dllama"))
    for aid in ("raspberry-pi-5-8gb", "raspberry-pi-4b-8gb", "gcp-c3d-highcpu-30"):
        write_record(root, Accelerator(kind="accelerator", id=aid, title=aid, name=aid, vendor="x",
                                       memory_gb=u, memory_bandwidth_gbs=u))


def _records(root: Path) -> dict[str, Benchmark]:
    return {r.title.split(" (")[0]: r for r in Ledger.load(root).typed("benchmark", Benchmark)}


def _arm(record: Benchmark, name: str) -> Arm:
    return next(a for a in record.arms if a.name == name)


def test_cells_become_arms_quoted_with_their_row(tmp_path: Path, readme: str, ledger_dir: Path) -> None:
    _references(ledger_dir)
    import_files("device-count-tables", [_repo(tmp_path, readme)], ledger_dir, options())
    records = _records(ledger_dir)
    assert sorted(records) == sorted(  # the network transfer tables ('2 devices' columns) are not imported
        [f"Llama 2 7B on {d} clusters" for d in ("Raspberry Pi 5 8GB", "Raspberry Pi 4B 8 GB", "x86_64 CPU Cloud Server")]
        + ["Llama 3 8B on Raspberry Pi 5 8GB clusters"]
        + [f"Llama 2 {s} on {d} clusters" for s in ("13B", "70B") for d in ("Raspberry Pi 4B 8 GB",
                                                                             "x86_64 CPU Cloud Server")])
    pi5 = records["Llama 2 7B on Raspberry Pi 5 8GB clusters"]
    assert [a.name for a in pi5.arms] == ["x1", "x2", "x4"]
    tpot, tps = _arm(pi5, "x4").results
    assert (tpot.metric, tpot.stat, tpot.value, tpot.unit) == ("tpot", "mean", 219.08, "ms")
    assert (tps.metric, tps.value, tps.unit) == ("per_stream_throughput", 4.56, "tok/s")
    assert tpot.quote is not None and tpot.quote.startswith("| Llama 2 7B  | **441.09 ms**, 2.26 t/s<br>")
    x4 = _arm(pi5, "x4").subject
    assert x4 is not None and isinstance(x4.accelerator_count, Known) and x4.accelerator_count.value == 4
    assert x4.parallelism is not None and isinstance(x4.parallelism.tp, Known) and x4.parallelism.tp.value == 4
    assert pi5.subject.accelerator == "raspberry-pi-5-8gb" and pi5.subject.engine == "distributed-llama"
    assert isinstance(pi5.subject.engine_version, Known) and pi5.subject.engine_version.value == "0.3.1"
    assert isinstance(pi5.subject.weights, Unknown) and "Q40" in (pi5.subject.weights.note or "")  # no record here
    assert isinstance(pi5.workload.concurrency, Unknown) and pi5.workload.concurrency.unknown == "source_omits"
    big = records["Llama 2 70B on Raspberry Pi 4B 8 GB clusters"]
    assert [a.name for a in big.arms] == ["x8"] and "4 x RasPi 4B 8 GB: Not enough RAM (nothing measured)" in big.body
    assert len(_arm(big, "x8").results) == 1  # the Pi 4B cells state no t/s
    vm = records["Llama 2 13B on x86_64 CPU Cloud Server clusters"]
    assert vm.subject.accelerator == "gcp-c3d-highcpu-30" and vm.subject.model == "llama-2-13b"
    source = Ledger.load(ledger_dir).get(pi5.sources[0])
    assert isinstance(source, Source)
    block = stored_files(source.body)["README.md"]
    assert block.intact and block.text == readme
    assert audit_errors(ledger_dir) == []


def test_reimport_changes_nothing(tmp_path: Path, readme: str, ledger_dir: Path) -> None:
    _references(ledger_dir)
    assert_reimport_changes_nothing("device-count-tables", [_repo(tmp_path, readme)], ledger_dir)


def test_malformed_rows_are_reported_and_skipped(tmp_path: Path, readme: str, ledger_dir: Path) -> None:
    _references(ledger_dir)
    broken = readme.replace("| Llama 3 8B  | **564.31 ms**", "| Llama 3 8B  | extra | **564.31 ms**")
    import_files("device-count-tables", [_repo(tmp_path, broken)], ledger_dir, options())
    records = _records(ledger_dir)
    assert "Llama 3 8B on Raspberry Pi 5 8GB clusters" not in records
    assert "Llama 2 7B on Raspberry Pi 5 8GB clusters" in records  # the other rows still import
    source = Ledger.load(ledger_dir).get(records["Llama 2 7B on Raspberry Pi 5 8GB clusters"].sources[0])
    assert isinstance(source, Source) and "5 cells, the header has 4" in source.body
    assert audit_errors(ledger_dir) == []


def test_a_snapshot_without_device_count_tables_is_an_error(tmp_path: Path, ledger_dir: Path) -> None:
    before = snapshot(ledger_dir)
    with pytest.raises(ImportFormatError, match=r"no table of \| Model \| N x <device>"):
        import_files("device-count-tables", [_repo(tmp_path, "| Model | 2 devices |\n|---|---|\n| a | **1 kB** |\n")],
                     ledger_dir, options())
    assert snapshot(ledger_dir) == before


def test_conditions_line_and_columns(readme: str) -> None:
    first = count_tables(readme)[0]
    assert first.title == "Raspberry Pi 5 8GB"
    assert first.conditions == {"Weights": "Q40", "Buffer": "Q80", "nSamples": "16", "switch": "TP-Link LS1008G"}
    assert first.counts == {1: (1, "RasPi 5 8 GB"), 2: (2, "RasPi 5 8 GB"), 3: (4, "RasPi 5 8 GB")}
    vm = count_tables(readme)[2]
    assert vm.conditions["VMs"] == "c3d-highcpu-30"


def test_weights_q40_names_the_distributed_llama_format(tmp_path: Path, readme: str, ledger_dir: Path) -> None:
    """``Weights = Q40`` on the conditions line resolves to the ``dllama-q40`` format record, quoted with the line."""
    _references(ledger_dir)
    u = Unknown(unknown="unchecked", note="test reference")
    write_record(ledger_dir, Format(kind="format", id="dllama-q40", title="q40", name="Q40", applies_to=["weights"],
                                    bits_per_element=u, bytes_per_param=u))
    import_files("device-count-tables", [_repo(tmp_path, readme)], ledger_dir, options())
    pi5 = _records(ledger_dir)["Llama 2 7B on Raspberry Pi 5 8GB clusters"]
    weights = pi5.subject.weights
    assert isinstance(weights, Known) and weights.value == "dllama-q40"
    assert weights.quote is not None and weights.quote.startswith("<sub><sup>Weights = Q40, Buffer = Q80")
    assert audit_errors(ledger_dir) == []
