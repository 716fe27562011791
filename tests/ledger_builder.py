"""The one builder of tiny ledgers for tests: real record files, written through the real writer.

- the mini ledger (``build_mini_ledger``): one source, reference records, a baseline + MTP experiment, audit-clean;
  its pieces (``source``, ``reference_records``, ``benchmark``) are dicts a test can change before ``write_all``;
- the site ledger (``write_tiny_ledger``): two experiments and text that must be escaped (``<script>``);
- the physics ledger (``write_physics_reference`` + ``physics_benchmark`` of ``physics_arm``s): GB10, a
  Qwen3.x-27B hybrid and the formats, for the ceiling, calibration and accuracy tests;
- the import reference ledger (``write_import_reference``): the ids the importer fixtures name.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path
from typing import Any

from benchledger.ledger.io import write_record
from benchledger.schema import (
    RECORD_ADAPTER,
    Accelerator,
    Arm,
    Benchmark,
    ComputePeak,
    Engine,
    Format,
    ModelArch,
    Quantity,
    Result,
    Subject,
    Unknown,
    Workload,
)

TODAY = dt.date(2026, 11, 29)
HISTORY = [{"date": TODAY, "change": "created", "why": "test fixture", "numbers_changed": True}]
EXCERPT = """| Config | TTFT (ms) | Output tok/s | vs. baseline |
|---|---|---|---|
| baseline (no MTP) | 1380.8 | 19.13 | - |
| MTP4, high acceptance (94.9% / 4.79) | 2820.8 | 24.06 | **+25.8%** |
Setup: GPU: Test Card x 2, `--tensor-parallel-size 2`, MTP `num_speculative_tokens = 4`, image 1.2.3.
Input 50K tokens, output 1K tokens, concurrency 1, no warmup. Memory bandwidth: 456 GB/s.
"""


def quoted(value: float, unit: str, quote: str, **extra: Any) -> dict[str, Any]:
    return {"value": value, "unit": unit, "provenance": "quoted", "quote": quote, **extra}


def source(record_id: str = "test-source", body: str = EXCERPT) -> dict[str, Any]:
    return {"id": record_id, "kind": "source", "title": "A test source", "url": "https://example.org/issue/1",
            "source_type": "github-issue", "retrieved": TODAY,
            "sha256": hashlib.sha256(body.encode()).hexdigest(), "history": HISTORY, "body": body}


def reference_records() -> list[dict[str, Any]]:
    unk = {"unknown": "unchecked"}
    return [
        {"id": "test-card", "kind": "accelerator", "title": "Test Card", "name": "Test Card", "vendor": "test",
         "memory_gb": unk, "sources": ["test-source"], "history": HISTORY,
         "memory_bandwidth_gbs": quoted(456, "GB/s", "Memory bandwidth: 456 GB/s.", basis="vendor-spec")},
        {"id": "test-model", "kind": "model", "title": "Test Model", "name": "Test Model", "history": HISTORY,
         "hidden_size": unk, "layers_full_attention": unk, "num_heads": unk, "num_kv_heads": unk,
         "head_dim": unk, "vocab_size": unk, "params_total": unk},
        {"id": "test-engine", "kind": "engine", "title": "Test Engine", "name": "Test Engine", "history": HISTORY},
        {"id": "fp8-e4m3", "kind": "format", "title": "FP8 E4M3", "name": "FP8 E4M3", "applies_to": ["weights"],
         "bits_per_element": unk, "bytes_per_param": unk, "history": HISTORY},
    ]


def benchmark(record_id: str = "test-bench") -> dict[str, Any]:
    base_row = "| baseline (no MTP) | 1380.8 | 19.13 | - |"
    mtp_row = "| MTP4, high acceptance (94.9% / 4.79) | 2820.8 | 24.06 | **+25.8%** |"
    return {
        "id": record_id, "kind": "benchmark", "title": "Test experiment", "measured_by": "third-party",
        "sources": ["test-source"], "history": HISTORY,
        "subject": {"model": "test-model", "engine": "test-engine", "accelerator": "test-card",
                    "weights": "fp8-e4m3",
                    "engine_version": {"value": "1.2.3", "quote": "image 1.2.3."},
                    "accelerator_count": {"value": 2, "quote": "GPU: Test Card x 2"},
                    "parallelism": {"tp": {"value": 2, "quote": "`--tensor-parallel-size 2`"}}},
        "workload": {"scenario": "fixed-concurrency",
                     "input_tokens": {"value": 50000, "quote": "Input 50K tokens"},
                     "output_tokens": {"value": 1000, "quote": "output 1K tokens"},
                     "concurrency": {"value": 1, "quote": "concurrency 1"},
                     "warmup": {"value": 0, "note": "the source says: no warmup"}},
        "arms": [
            {"name": "base", "results": [
                {**quoted(1380.8, "ms", base_row), "metric": "ttft"},
                {**quoted(19.13, "tok/s", base_row), "metric": "output_throughput"}]},
            {"name": "mtp4", "baseline": "base",
             "speculative": {"method": "mtp", "k": {"value": 4, "quote": "`num_speculative_tokens = 4`"}},
             "results": [
                 {**quoted(2820.8, "ms", mtp_row), "metric": "ttft"},
                 {**quoted(24.06, "tok/s", mtp_row), "metric": "output_throughput"}],
             "acceptance": {"rate": quoted(94.9, "%", mtp_row), "mean_length": quoted(4.79, "tokens", mtp_row),
                            "definition": "source-text"},
             "quoted_changes": [{"metric": "output_throughput", "percent": quoted(25.8, "%", mtp_row)}]},
        ],
    }


def write_all(root: Path, records: list[dict[str, Any]]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for data in records:
        write_record(root, RECORD_ADAPTER.validate_python(data))
    return root


def build_mini_ledger(root: Path) -> Path:
    """A valid ledger: one source, reference records, one two-arm benchmark. Audits with no errors."""
    return write_all(root, [source(), *reference_records(), benchmark()])


# -- the site ledger ------------------------------------------------------------------------------------

SCRIPT_QUOTE = "The runner says <script>alert('quote')</script> version 1.2.3"
SCRIPT_BODY = "Body text <script>alert('body')</script> and <img src=x onerror=alert('img')> end."
SCRIPT_TITLE = "Tiny <b>MTP</b> & friends <script>alert('title')</script>"
SITE_EXCERPT = (
    "| conc | arm | output tok/s |\n"
    "|---|---|---|\n"
    "| 1 | base | 50.0 |\n"
    "| 1 | mtp k=3 | 80.0 |\n"
    "| 4 | base | 150.0 |\n"
    "| 4 | mtp k=3 | 120.0 |\n"
    "\n"
    f"{SCRIPT_QUOTE}\n"
    "MTP, num_speculative_tokens = 3\n"
    "We support speculative decoding (MTP).\n"
)
BENCH_IDS = ("tiny-mtp-bench", "tiny-plain-bench")


def _tok_s(value: float, quote: str) -> dict[str, Any]:
    return {"value": value, "unit": "tok/s", "provenance": "quoted", "quote": quote, "metric": "output_throughput"}


def tiny_records() -> list[dict[str, Any]]:
    """The records as plain dicts (validated on write)."""
    history = [{"date": "2026-01-02", "change": "created", "why": "site test fixture", "numbers_changed": True}]
    source = {
        "id": "tiny-src", "kind": "source", "title": "Tiny source <script>alert('source-title')</script>",
        "url": "https://example.org/tiny", "source_type": "docs", "retrieved": "2026-01-02",
        "sha256": hashlib.sha256(SITE_EXCERPT.encode("utf-8")).hexdigest(), "body": SITE_EXCERPT, "history": history,
    }
    accel = {
        "id": "tiny-gpu", "kind": "accelerator", "title": "Tiny GPU", "name": "Tiny GPU", "vendor": "Acme",
        "memory_gb": {"unknown": "unchecked"}, "memory_bandwidth_gbs": {"unknown": "source_omits", "note": "n/a"},
        "history": history,
    }
    models = [
        {"id": mid, "kind": "model", "title": mid, "name": mid,
         **{f: {"unknown": "unchecked"} for f in ("hidden_size", "layers_full_attention", "num_heads",
                                                  "num_kv_heads", "head_dim", "vocab_size", "params_total")},
         "history": history}
        for mid in ("tiny-model", "tiny-model-b")
    ]
    engine = {
        "id": "tiny-engine", "kind": "engine", "title": "Tiny engine", "name": "Tiny engine", "sources": ["tiny-src"],
        "claims": [{"feature": "speculative-decoding", "methods": ["mtp"],
                    "quote": "We support speculative decoding (MTP)."}],
        "history": history,
    }
    mtp = {
        "id": BENCH_IDS[0], "kind": "benchmark", "title": SCRIPT_TITLE, "measured_by": "third-party",
        "sources": ["tiny-src"], "status": "reviewed", "body": SCRIPT_BODY, "history": history,
        "subject": {"model": "tiny-model", "engine": "tiny-engine", "accelerator": "tiny-gpu",
                    "accelerator_count": 1, "weights": "fp8-e4m3",
                    "engine_version": {"value": "1.2.3", "quote": SCRIPT_QUOTE}},
        "workload": {"scenario": "fixed-concurrency", "input_tokens": 1000,
                     "output_tokens": {"unknown": "source_omits", "note": "not in <the> table"}},
        "arms": [
            {"name": "c1-base", "workload": {"concurrency": 1}, "results": [_tok_s(50.0, "| 1 | base | 50.0 |")]},
            {"name": "c1-mtp", "baseline": "c1-base", "workload": {"concurrency": 1},
             "speculative": {"method": "mtp", "k": {"value": 3, "quote": "MTP, num_speculative_tokens = 3"}},
             "results": [_tok_s(80.0, "| 1 | mtp k=3 | 80.0 |")]},
            {"name": "c4-base", "workload": {"concurrency": 4}, "results": [_tok_s(150.0, "| 4 | base | 150.0 |")]},
            {"name": "c4-mtp", "baseline": "c4-base", "workload": {"concurrency": 4},
             "speculative": {"method": "mtp", "k": {"value": 3, "quote": "MTP, num_speculative_tokens = 3"}},
             "results": [_tok_s(120.0, "| 4 | mtp k=3 | 120.0 |")]},
        ],
    }
    plain = {
        "id": BENCH_IDS[1], "kind": "benchmark", "title": "Tiny plain run", "measured_by": "third-party",
        "sources": ["tiny-src"], "history": history,
        "subject": {"model": "tiny-model-b", "engine": "tiny-engine", "accelerator": "tiny-gpu",
                    "accelerator_count": 2, "weights": "bf16", "engine_version": {"unknown": "unchecked"}},
        "workload": {"scenario": "fixed-concurrency", "input_tokens": 1000, "output_tokens": 100,
                     "concurrency": 1, "warmup": {"unknown": "source_omits"}},
        "arms": [{"name": "base", "results": [_tok_s(50.0, "| 1 | base | 50.0 |")]}],
    }
    return [source, accel, *models, engine, mtp, plain]


def write_tiny_ledger(root: Path) -> Path:
    """Write the site ledger under ``root`` and return it (the MTP experiment leaves ``warmup`` out on purpose,
    so the audit has a finding to show)."""
    return write_all(root, tiny_records())


# -- the physics ledger ---------------------------------------------------------------------------------

GB10_BW = 273.0


def physics_quantity(value: float, unit: str) -> Quantity:
    return Quantity(value=value, unit=unit, provenance="quoted", quote=f"{value} {unit}", source="src-test")


def write_physics_reference(root: Path) -> None:
    """GB10 (273 GB/s, 500 TF fp4 dense), Qwen3.x-27B hybrid, and the formats (test inputs)."""
    write_record(root, Accelerator(
        id="nvidia-gb10", kind="accelerator", title="GB10", name="GB10", vendor="NVIDIA",
        memory_gb=physics_quantity(128, "GB"), memory_bandwidth_gbs=physics_quantity(GB10_BW, "GB/s"),
        compute=[ComputePeak(precision="fp4", tflops=physics_quantity(1000, "TFLOP/s"), dense=False)],
    ))
    write_record(root, ModelArch(
        id="qwen3.8-27b", kind="model", title="Qwen3.8-27B", name="Qwen3.8-27B",
        hidden_size=physics_quantity(5120, "count"), layers_full_attention=physics_quantity(16, "layers"), layers_linear=physics_quantity(48, "layers"),
        num_heads=physics_quantity(24, "heads"), num_kv_heads=physics_quantity(4, "heads"), head_dim=physics_quantity(256, "count"), vocab_size=physics_quantity(248320, "tokens"),
        params_total=physics_quantity(27, "B"), recurrent_state_mib=physics_quantity(144, "MiB"), mtp_layers=physics_quantity(1, "layers"),
        mtp_params=physics_quantity(0.42, "B"),
    ))
    for fid, size in (("bf16", 2.0), ("fp8-e4m3", 1.0), ("nvfp4", 0.5625)):
        write_record(root, Format(
            id=fid, kind="format", title=fid, name=fid, applies_to=["weights", "kv-cache"],
            bits_per_element=physics_quantity(size * 8, "bits"), bytes_per_param=physics_quantity(size, "bytes"),
        ))


def physics_arm(name: str, tok_s: float, concurrency: int, *, k: int | None = None, al: float | None = None,
        baseline: str | None = None, source: str = "src-test", **extra: Any) -> Arm:
    from benchledger.schema import Acceptance, Speculative, WorkloadOverride

    result = Result(value=round(tok_s, 4), unit="tok/s", provenance="quoted", quote=f"{round(tok_s, 4)} tok/s",
                    source=source, metric="output_throughput")
    spec = Speculative(method="mtp", k=k) if k is not None else None
    acceptance = (Acceptance(mean_length=physics_quantity(al, "tokens"), definition="source-text") if al is not None else None)
    return Arm(name=name, baseline=baseline, speculative=spec, acceptance=acceptance,
               workload=WorkloadOverride(concurrency=concurrency), results=[result], **extra)


def physics_benchmark(record_id: str, arms: list[Arm], *, weights: str | None = "nvfp4", input_tokens: int = 1000,
              output_tokens: int = 256, sources: tuple[str, ...] = ("src-test",)) -> Benchmark:
    return Benchmark(
        id=record_id, kind="benchmark", title=record_id, measured_by="third-party", sources=list(sources),
        subject=Subject(model="qwen3.8-27b", engine="vllm", accelerator="nvidia-gb10", accelerator_count=1,
                        weights=weights, kv_cache="fp8-e4m3"),
        workload=Workload(scenario="fixed-concurrency", input_tokens=input_tokens, output_tokens=output_tokens),
        arms=arms,
    )

# -- the import reference ledger ------------------------------------------------------------------------------

def write_import_reference(root: Path) -> None:
    """The references the autobench fixture pages name (model by HF id, engine by name)."""
    u = Unknown(unknown="unchecked", note="test reference")
    write_record(root, ModelArch(kind="model", id="qwen3-8-27b", title="Qwen3.8-27B", name="Qwen3.8-27B",
                                 hf_id="Qwen/Qwen3.8-27B", hidden_size=u, layers_full_attention=u, num_heads=u,
                                 num_kv_heads=u, head_dim=u, vocab_size=u, params_total=u))
    write_record(root, Engine(kind="engine", id="vllm", title="vLLM", name="vLLM"))
    write_record(root, Accelerator(kind="accelerator", id="nvidia-gb10", title="NVIDIA GB10", name="GB10",
                                   vendor="NVIDIA", memory_gb=u, memory_bandwidth_gbs=u))


__all__ = [
    "BENCH_IDS", "EXCERPT", "GB10_BW", "SCRIPT_BODY", "SCRIPT_QUOTE", "SCRIPT_TITLE", "benchmark", "build_mini_ledger",
    "physics_arm", "physics_benchmark", "physics_quantity", "quoted", "reference_records", "source", "tiny_records",
    "write_all", "write_import_reference", "write_physics_reference", "write_tiny_ledger",
]
