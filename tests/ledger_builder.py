"""Build small, valid ledgers in a folder for tests (real files, written through the real writer)."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path
from typing import Any

from benchledger.ledger.io import write_record
from benchledger.schema import RECORD_ADAPTER

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


__all__ = ["EXCERPT", "benchmark", "build_mini_ledger", "quoted", "reference_records", "source", "write_all"]
