"""Helpers for importer tests: options with a fixed date, a tiny reference ledger, snapshots, audit errors."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

from benchledger.audit import run_audit
from benchledger.importers.common import ImportOptions
from benchledger.ledger.io import write_record
from benchledger.ledger.store import Ledger
from benchledger.schema import Accelerator, Benchmark, Engine, ModelArch, Unknown

FIXTURES = Path(__file__).resolve().parents[2] / "data" / "fixtures"
RETRIEVED = dt.date(2026, 11, 30)


def options(**kw: object) -> ImportOptions:
    return ImportOptions(retrieved=RETRIEVED, **kw)  # type: ignore[arg-type]


def write_reference_ledger(root: Path) -> None:
    """A tiny ledger with the references the autobench pages name (model by HF id, engine by name)."""
    u = Unknown(unknown="unchecked", note="test reference")
    write_record(root, ModelArch(kind="model", id="qwen3-8-27b", title="Qwen3.8-27B", name="Qwen3.8-27B",
                                 hf_id="Qwen/Qwen3.8-27B", hidden_size=u, layers_full_attention=u, num_heads=u,
                                 num_kv_heads=u, head_dim=u, vocab_size=u, params_total=u))
    write_record(root, Engine(kind="engine", id="vllm", title="vLLM", name="vLLM"))
    write_record(root, Accelerator(kind="accelerator", id="nvidia-gb10", title="NVIDIA GB10", name="GB10",
                                   vendor="NVIDIA", memory_gb=u, memory_bandwidth_gbs=u))


def snapshot(root: Path) -> dict[str, str]:
    """Every file under a folder → its sha256 (to prove that nothing was written)."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def audit_errors(root: Path) -> list[str]:
    report = run_audit(Ledger.load(root))
    return [f"{f.code} {f.record} {f.field}: {f.message}" for f in report.findings if f.severity == "error"]


def benchmark(root: Path, record_id: str) -> Benchmark:
    record = Ledger.load(root).get(record_id)
    assert isinstance(record, Benchmark)
    return record


def results(record: Benchmark, arm: str | None = None) -> dict[tuple[str, str, str | None], float]:
    """(metric, stat, definition) → value of one arm (the only arm by default)."""
    chosen = record.arms[0] if arm is None else next(a for a in record.arms if a.name == arm)
    return {(r.metric, r.stat, r.definition): r.value for r in chosen.results}
