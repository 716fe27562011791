"""No importer states a weight format its weights cannot fit in (``importers/weights_fit.py``): for each importer
that maps a stated format, a fixture whose stated format cannot be held by the stated devices imports with the
weights ``unknown`` and the numbers in the note, and the ledger audits clean (``physics.weights-do-not-fit``)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.unit.importers.support import audit_errors, benchmark, git, options

from benchledger.importers import import_files
from benchledger.ledger.io import write_record
from benchledger.ledger.store import Ledger
from benchledger.schema import Accelerator, Benchmark, Engine, Format, Known, ModelArch, Quantity, Unknown


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
    root = tmp_path / tree
    shutil.copytree(fixtures / tree, root)
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
