"""Build a tiny real ledger on disk (write_record) for the physics audit and calibration tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchledger.ledger import write_record
from benchledger.schema import (
    Accelerator,
    Arm,
    Benchmark,
    ComputePeak,
    Format,
    ModelArch,
    Quantity,
    Result,
    Subject,
    Workload,
)

GB10_BW = 273.0


def q(value: float, unit: str) -> Quantity:
    return Quantity(value=value, unit=unit, provenance="quoted", quote=f"{value} {unit}", source="src-test")


def write_reference(root: Path) -> None:
    """GB10 (273 GB/s, 500 TF fp4 dense), Qwen3.x-27B hybrid, and the formats (test inputs)."""
    write_record(root, Accelerator(
        id="nvidia-gb10", kind="accelerator", title="GB10", name="GB10", vendor="NVIDIA",
        memory_gb=q(128, "GB"), memory_bandwidth_gbs=q(GB10_BW, "GB/s"),
        compute=[ComputePeak(precision="fp4", tflops=q(1000, "TFLOP/s"), dense=False)],
    ))
    write_record(root, ModelArch(
        id="qwen3.8-27b", kind="model", title="Qwen3.8-27B", name="Qwen3.8-27B",
        hidden_size=q(5120, "count"), layers_full_attention=q(16, "layers"), layers_linear=q(48, "layers"),
        num_heads=q(24, "heads"), num_kv_heads=q(4, "heads"), head_dim=q(256, "count"), vocab_size=q(248320, "tokens"),
        params_total=q(27, "B"), recurrent_state_mib=q(144, "MiB"), mtp_layers=q(1, "layers"),
        mtp_params=q(0.42, "B"),
    ))
    for fid, size in (("bf16", 2.0), ("fp8-e4m3", 1.0), ("nvfp4", 0.5625)):
        write_record(root, Format(
            id=fid, kind="format", title=fid, name=fid, applies_to=["weights", "kv-cache"],
            bits_per_element=q(size * 8, "bits"), bytes_per_param=q(size, "bytes"),
        ))


def arm(name: str, tok_s: float, concurrency: int, *, k: int | None = None, al: float | None = None,
        baseline: str | None = None, source: str = "src-test", **extra: Any) -> Arm:
    from benchledger.schema import Acceptance, Speculative, WorkloadOverride

    result = Result(value=round(tok_s, 4), unit="tok/s", provenance="quoted", quote=f"{round(tok_s, 4)} tok/s",
                    source=source, metric="output_throughput")
    spec = Speculative(method="mtp", k=k) if k is not None else None
    acceptance = (Acceptance(mean_length=q(al, "tokens"), definition="source-text") if al is not None else None)
    return Arm(name=name, baseline=baseline, speculative=spec, acceptance=acceptance,
               workload=WorkloadOverride(concurrency=concurrency), results=[result], **extra)


def benchmark(record_id: str, arms: list[Arm], *, weights: str | None = "nvfp4", input_tokens: int = 1000,
              output_tokens: int = 256, sources: tuple[str, ...] = ("src-test",)) -> Benchmark:
    return Benchmark(
        id=record_id, kind="benchmark", title=record_id, measured_by="third-party", sources=list(sources),
        subject=Subject(model="qwen3.8-27b", engine="vllm", accelerator="nvidia-gb10", accelerator_count=1,
                        weights=weights, kv_cache="fp8-e4m3"),
        workload=Workload(scenario="fixed-concurrency", input_tokens=input_tokens, output_tokens=output_tokens),
        arms=arms,
    )
