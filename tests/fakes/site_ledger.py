"""A tiny ledger for the site tests: two experiments, reference records, and text that must be escaped.

Written with ``benchledger.ledger.io.write_record``. Strings carry ``<script>`` in a quote, a title, a body and a
source excerpt; the MTP experiment leaves ``warmup`` out on purpose so the audit has a finding to show.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from benchledger.ledger.io import write_record
from benchledger.schema import RECORD_ADAPTER

SCRIPT_QUOTE = "The runner says <script>alert('quote')</script> version 1.2.3"
SCRIPT_BODY = "Body text <script>alert('body')</script> and <img src=x onerror=alert('img')> end."
SCRIPT_TITLE = "Tiny <b>MTP</b> & friends <script>alert('title')</script>"
EXCERPT = (
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


def _q(value: float, quote: str) -> dict[str, Any]:
    return {"value": value, "unit": "tok/s", "provenance": "quoted", "quote": quote, "metric": "output_throughput"}


def tiny_records() -> list[dict[str, Any]]:
    """The records as plain dicts (validated on write)."""
    history = [{"date": "2026-01-02", "change": "created", "why": "site test fixture", "numbers_changed": True}]
    source = {
        "id": "tiny-src", "kind": "source", "title": "Tiny source <script>alert('source-title')</script>",
        "url": "https://example.org/tiny", "source_type": "docs", "retrieved": "2026-01-02",
        "sha256": hashlib.sha256(EXCERPT.encode("utf-8")).hexdigest(), "body": EXCERPT, "history": history,
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
            {"name": "c1-base", "workload": {"concurrency": 1}, "results": [_q(50.0, "| 1 | base | 50.0 |")]},
            {"name": "c1-mtp", "baseline": "c1-base", "workload": {"concurrency": 1},
             "speculative": {"method": "mtp", "k": {"value": 3, "quote": "MTP, num_speculative_tokens = 3"}},
             "results": [_q(80.0, "| 1 | mtp k=3 | 80.0 |")]},
            {"name": "c4-base", "workload": {"concurrency": 4}, "results": [_q(150.0, "| 4 | base | 150.0 |")]},
            {"name": "c4-mtp", "baseline": "c4-base", "workload": {"concurrency": 4},
             "speculative": {"method": "mtp", "k": {"value": 3, "quote": "MTP, num_speculative_tokens = 3"}},
             "results": [_q(120.0, "| 4 | mtp k=3 | 120.0 |")]},
        ],
    }
    plain = {
        "id": BENCH_IDS[1], "kind": "benchmark", "title": "Tiny plain run", "measured_by": "third-party",
        "sources": ["tiny-src"], "history": history,
        "subject": {"model": "tiny-model-b", "engine": "tiny-engine", "accelerator": "tiny-gpu",
                    "accelerator_count": 2, "weights": "bf16", "engine_version": {"unknown": "unchecked"}},
        "workload": {"scenario": "fixed-concurrency", "input_tokens": 1000, "output_tokens": 100,
                     "concurrency": 1, "warmup": {"unknown": "source_omits"}},
        "arms": [{"name": "base", "results": [_q(50.0, "| 1 | base | 50.0 |")]}],
    }
    return [source, accel, *models, engine, mtp, plain]


def write_tiny_ledger(root: Path) -> Path:
    """Write the tiny ledger under ``root`` and return it."""
    for data in tiny_records():
        write_record(root, RECORD_ADAPTER.validate_python(data))
    return root


__all__ = ["BENCH_IDS", "SCRIPT_BODY", "SCRIPT_QUOTE", "SCRIPT_TITLE", "tiny_records", "write_tiny_ledger"]
