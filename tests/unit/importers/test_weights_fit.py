"""No importer states a weight format its weights cannot fit in (``importers/weights_fit.py``): for each importer
that maps a stated format and states a device count, a fixture whose stated format cannot be held by the stated
devices imports with the weights ``unknown`` and the numbers in the note, the arms that fit keep their format, and
the ledger audits clean (``physics.weights-do-not-fit``). The reference numbers are the bundled ledger's
(ledger/models, formats, accelerators). Only the MLPerf fixture states an impossible format as published; for the
table importers one cell of the verbatim fixture is changed here to claim a run its hardware cannot hold (autobench
and inference-research state no device count, so the fit cannot be checked there)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.unit.importers.support import audit_errors, benchmark, git, options, snapshot_repo

from benchledger.importers import import_files
from benchledger.ledger.io import write_record
from benchledger.ledger.store import Ledger
from benchledger.schema import (
    Accelerator,
    Arm,
    Benchmark,
    Engine,
    Format,
    Known,
    ModelArch,
    Quantity,
    Unknown,
)


def derived(value: float, unit: str) -> Quantity:
    return Quantity(value=value, unit=unit, provenance="derived", formula="test reference")


U = Unknown(unknown="unchecked", note="test reference")


def model(mid: str, params_b: float, **kw: Any) -> ModelArch:
    return ModelArch(kind="model", id=mid, title=mid, name=mid, hidden_size=U, layers_full_attention=U, num_heads=U,
                     num_kv_heads=U, head_dim=U, vocab_size=U, params_total=derived(params_b, "B"), **kw)


def accelerator(aid: str, memory_gb: float, **kw: Any) -> Accelerator:
    return Accelerator(kind="accelerator", id=aid, title=aid, name=kw.pop("name", aid), vendor="NVIDIA",
                       memory_gb=derived(memory_gb, "GB"), memory_bandwidth_gbs=U, **kw)


def fmt(fid: str, bytes_per_param: float) -> Format:
    return Format(kind="format", id=fid, title=fid, name=fid, applies_to=["weights"],
                  bits_per_element=derived(8 * bytes_per_param, "bits"),
                  bytes_per_param=derived(bytes_per_param, "bytes"))


def weights_of(record: Benchmark, arm: int = 0) -> object:
    chosen = record.arms[arm]
    return chosen.subject.weights if chosen.subject and chosen.subject.weights is not None else record.subject.weights


def only_benchmark(root: Path) -> Benchmark:
    (record,) = [r for r in Ledger.load(root).of_kind("benchmark") if isinstance(r, Benchmark)]
    return record


# --- mlperf-results: the defect found in the bundled ledger ----------------------------------------------------

def _snapshot(fixtures: Path, tmp_path: Path, tree: str) -> Path:
    """The fixture with one field changed in each qwen3-vl ``measurements.json``: ``"weight_transformations":
    "quantization"`` → ``"none"``. As published, the file states fp32 and quantization, which the importer refuses
    before any fit (``mlperf_system.quantized_note``, tested in test_mlperf_results.py); with no transformation
    the stated fp32 reaches the fit check this file tests."""
    root = tmp_path / tree
    shutil.copytree(fixtures / tree, root)
    measurements = list(root.rglob("qwen3-vl-235b-a22b/*/measurements.json"))
    assert measurements
    for path in measurements:
        text = path.read_text(encoding="utf-8")
        assert '"weight_transformations": "quantization"' in text
        path.write_text(text.replace('"weight_transformations": "quantization"', '"weight_transformations": "none"'),
                        encoding="utf-8")
    for args in (("init", "-q"), ("config", "core.autocrlf", "false"),
                 ("remote", "add", "origin", "https://github.com/mlcommons/inference_results_v6.0.git"),
                 ("add", "-A"), ("commit", "-q", "-m", "results")):
        git(root, *args, date="2026-02-01T12:00:00Z")
    return root


def _mlperf_references(root: Path) -> None:
    """Qwen3-VL-235B-A22B (235.09 B params), fp32 (4 bytes), GB200 (186 GB) and GB300 (288 GB): the bundled
    ledger's numbers (ledger/models/qwen3-vl-235b-a22b.md, formats/fp32.md, accelerators/nvidia-gb200.md, -gb300)."""
    write_record(root, model("qwen3-vl-235b-a22b", 235.09363456))
    write_record(root, fmt("fp32", 4.0))
    write_record(root, accelerator("nvidia-gb200", 186))
    write_record(root, accelerator("nvidia-gb300", 288))
    write_record(root, Engine(kind="engine", id="tensorrt", title="t", name="t"))


def test_mlperf_results_fp32_that_cannot_fit_stays_unknown_with_the_numbers(fixtures: Path, tmp_path: Path,
                                                                           ledger_dir: Path) -> None:
    """Google's GB200 ×4 qwen3-vl-235b-a22b states ``weight_data_types: fp32``: 235.09 B × 4 bytes = 940.4 GB,
    more than 4 × 186 GB (799 GB even read as GiB). The old importer mapped it to fp32."""
    _mlperf_references(ledger_dir)
    import_files("mlperf-results", [_snapshot(fixtures, tmp_path, "mlperf_results_gb200")], ledger_dir, options())
    record = only_benchmark(ledger_dir)
    weights = weights_of(record)
    assert isinstance(weights, Unknown), weights
    assert weights.unknown == "unchecked"
    assert "weight_data_types 'fp32'" in weights.note and "not taken as the format the run streamed" in weights.note
    assert "= 940.4 GB, more than the 4 × 186 GB of nvidia-gb200 memory (798.9 GB even read as GiB)" in weights.note
    assert audit_errors(ledger_dir) == []


def test_mlperf_results_fp32_that_fits_is_kept(fixtures: Path, tmp_path: Path, ledger_dir: Path) -> None:
    """The same model and format on NVIDIA's GB300 ×4 (4 × 288 GB = 1237 GB read as GiB) fits: fp32 stays."""
    _mlperf_references(ledger_dir)
    import_files("mlperf-results", [_snapshot(fixtures, tmp_path, "mlperf_results_v6")], ledger_dir, options())
    record = next(r for r in Ledger.load(ledger_dir).of_kind("benchmark")
                  if isinstance(r, Benchmark) and "qwen3-vl" in r.id)
    weights = weights_of(record)
    assert isinstance(weights, Known) and weights.value == "fp32"
    assert benchmark(ledger_dir, record.id).subject.accelerator == "nvidia-gb300"


def arm_named(record: Benchmark, name: str) -> Arm:
    return next(a for a in record.arms if a.name == name)


def assert_refused(record: Benchmark, arm: str, numbers: str) -> None:
    weights = weights_of(record, record.arms.index(arm_named(record, arm)))
    assert isinstance(weights, Unknown) and weights.unknown == "unchecked", (arm, weights)
    assert "not taken as the format the run streamed" in weights.note and numbers in weights.note, weights.note


# --- llama-bench-tables -----------------------------------------------------------------------------------------

LLAMA_70B_Q4 = ("|                 | 70B Q4_K_M | 16.57   | 16.29    | 15.36    | 14.34    | 357.32  | 393.89   | "
                "379.52   | 338.82   |\n")


def test_llama_bench_tables_a_cell_its_devices_cannot_hold(fixtures: Path, tmp_path: Path, ledger_dir: Path) -> None:
    """The README's 2 × RTX 3090 24GB rows with a 70B F16 row added (70.55 B × 2 bytes = 141.1 GB, more than
    51.5 GB): its arms get no format; the 70B Q4_K_M arms (43.2 GB) keep q4-k-m, and the 4080 16GB's real 8B F16
    arms (16.06 GB in 16 GB read as GiB, 17.2 GB) keep fp16."""
    readme = (fixtures / "llama_bench_tables" / "README.md").read_text(encoding="utf-8")
    assert LLAMA_70B_Q4 in readme
    changed = readme.replace(LLAMA_70B_Q4, LLAMA_70B_Q4 + LLAMA_70B_Q4.replace("70B Q4_K_M", "70B F16   "))
    for mid, params in (("llama-3-8b", 8.030261248), ("llama-3-70b", 70.553706496)):
        write_record(ledger_dir, model(mid, params))
    write_record(ledger_dir, Engine(kind="engine", id="llama-cpp", title="llama.cpp", name="llama.cpp"))
    write_record(ledger_dir, accelerator("nvidia-rtx-4080", 16))
    write_record(ledger_dir, accelerator("nvidia-rtx-3090", 24))
    write_record(ledger_dir, fmt("q4-k-m", 0.6118))
    write_record(ledger_dir, fmt("fp16", 2.0))
    repo = snapshot_repo(tmp_path, {"README.md": changed}, "https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference",
                         "2024-05-12T12:00:00Z")
    import_files("llama-bench-tables", [repo], ledger_dir, options())
    records = {r.title.split(" (")[0]: r for r in Ledger.load(ledger_dir).typed("benchmark", Benchmark)}
    pair = records["llama-bench, Llama 3 70B on 3090 24GB * 2"]
    assert_refused(pair, "fp16-tg512", "= 141.1 GB, more than the 2 × 24 GB of nvidia-rtx-3090 memory (51.5 GB even "
                   "read as GiB)")
    q4 = weights_of(pair, pair.arms.index(arm_named(pair, "q4-k-m-tg512")))
    assert isinstance(q4, Known) and q4.value == "q4-k-m"
    rtx4080 = records["llama-bench, Llama 3 8B on 4080 16GB"]
    f16 = weights_of(rtx4080, rtx4080.arms.index(arm_named(rtx4080, "fp16-tg512")))
    assert isinstance(f16, Known) and f16.value == "fp16"
    assert audit_errors(ledger_dir) == []


# --- device-count-tables ----------------------------------------------------------------------------------------

PI4_70B = ("| Llama 2 70B | <sub><sup>Not enough RAM</sup></sub>                                | <sub><sup>Not enough "
           "RAM</sup></sub>                                  | <sub><sup>Not enough RAM</sup></sub>                      "
           "                           |")


def test_device_count_tables_a_cluster_too_small_for_the_weights(fixtures: Path, tmp_path: Path,
                                                                 ledger_dir: Path) -> None:
    """The README says 'Not enough RAM' for Llama 2 70B Q40 on 4 × Raspberry Pi 4B 8 GB; with a time put in that
    cell instead, the 4-device arm (68.98 B × 0.5625 bytes = 38.8 GB, more than 4 × 8 GB = 34.4 GB read as GiB)
    gets no format, and the 8-device arm keeps dllama-q40."""
    readme = (fixtures / "device_count_tables" / "README.md").read_text(encoding="utf-8")
    assert readme.count(PI4_70B) == 1
    cells = PI4_70B.split("|")
    cells[4] = " **2500.00 ms**<br><sub><sup>I: 2000.00 ms, T: 500.00 ms</sup></sub> "
    changed = readme.replace(PI4_70B, "|".join(cells))
    write_record(ledger_dir, model("llama-2-70b", 68.976648192))
    for mid in ("llama-2-7b", "llama-2-13b", "llama-3-8b"):
        write_record(ledger_dir, model(mid, 6.738415616 if mid == "llama-2-7b" else 13.01586432))
    write_record(ledger_dir, Engine(kind="engine", id="distributed-llama", title="Distributed Llama", name="dllama"))
    for aid in ("raspberry-pi-5-8gb", "raspberry-pi-4b-8gb"):
        write_record(ledger_dir, accelerator(aid, 8))
    write_record(ledger_dir, fmt("dllama-q40", 0.5625))
    repo = snapshot_repo(tmp_path, {"README.md": changed}, "https://github.com/b4rtaz/distributed-llama",
                         "2025-02-15T12:00:00Z")
    import_files("device-count-tables", [repo], ledger_dir, options())
    records = {r.title.split(" (")[0]: r for r in Ledger.load(ledger_dir).typed("benchmark", Benchmark)}
    cluster = records["Llama 2 70B on Raspberry Pi 4B 8 GB clusters"]
    assert [a.name for a in cluster.arms] == ["x4", "x8"]
    assert_refused(cluster, "x4", "= 38.8 GB, more than the 4 × 8 GB of raspberry-pi-4b-8gb memory (34.4 GB even "
                   "read as GiB)")
    kept = weights_of(cluster, 1)
    assert isinstance(kept, Known) and kept.value == "dllama-q40"
    assert audit_errors(ledger_dir) == []


# --- device-speed-tables ----------------------------------------------------------------------------------------

EMPTY_13B = "| Llama-2-13b-chat-hf               |   16 bit   |  |                  |                  |                  |"


def test_device_speed_tables_a_row_its_device_cannot_hold(fixtures: Path, tmp_path: Path, ledger_dir: Path) -> None:
    """The table's empty Llama-2-13b 16 bit row filled in as if run on one RTX 2080 Ti (13.02 B × 2 bytes = 26.0 GB,
    more than 11 GB = 11.8 GB read as GiB): its arm gets no format; the card's real 8bit row (6.7 GB) keeps int8."""
    performance = (fixtures / "device_speed_tables" / "performance.md").read_text(encoding="utf-8")
    assert performance.count(EMPTY_13B) == 1
    changed = performance.replace(EMPTY_13B, "| Llama-2-13b-chat-hf | 16 bit | NVIDIA RTX 2080 Ti | 26.1 GB VRAM | 2.10 "
                                  "| 900.00 |")
    write_record(ledger_dir, model("llama-2-7b", 6.738415616))
    write_record(ledger_dir, model("llama-2-13b", 13.01586432))
    write_record(ledger_dir, Engine(kind="engine", id="llama-cpp", title="llama.cpp", name="llama.cpp"))
    write_record(ledger_dir, accelerator("nvidia-rtx-2080-ti", 11))
    write_record(ledger_dir, fmt("fp16", 2.0))
    write_record(ledger_dir, fmt("int8", 1.0))
    repo = snapshot_repo(tmp_path, {"docs/performance.md": changed}, "https://github.com/liltom-eth/llama2-webui",
                         "2024-02-13T12:00:00Z")
    import_files("device-speed-tables", [repo], ledger_dir, options())
    by_model = {(r.subject.accelerator, r.subject.model): r for r in Ledger.load(ledger_dir).typed("benchmark", Benchmark)}
    big = by_model[("nvidia-rtx-2080-ti", "llama-2-13b")]
    assert_refused(big, big.arms[0].name, "= 26.0 GB, more than the 1 × 11 GB of nvidia-rtx-2080-ti memory (11.8 GB "
                   "even read as GiB)")
    small = by_model[("nvidia-rtx-2080-ti", "llama-2-7b")]
    int8 = [weights_of(small, i) for i in range(len(small.arms))]
    assert any(isinstance(w, Known) and w.value == "int8" for w in int8), int8
    assert audit_errors(ledger_dir) == []
