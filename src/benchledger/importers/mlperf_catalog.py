"""How MLPerf's names map to ledger ids: benchmarks → models, accelerator names → accelerators, framework text →
engines, ``weight_data_types`` → formats. Only exact, stated names map; anything else stays unmatched (the
importer then uses the placeholder id or ``unknown`` with the stated text as the reason).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MODELS: dict[str, str] = {
    "llama2-70b-99": "llama-2-70b", "llama2-70b-99.9": "llama-2-70b",
    "llama3.1-405b": "llama-3.1-405b", "llama3.1-8b": "llama-3.1-8b", "llama3.1-8b-edge": "llama-3.1-8b",
    "mixtral-8x7b": "mixtral-8x7b", "deepseek-r1": "deepseek-r1", "gptj-99": "gpt-j-6b", "gptj-99.9": "gpt-j-6b",
    "gpt-oss-120b": "gpt-oss-120b", "qwen3-vl-235b-a22b": "qwen3-vl-235b-a22b",
    # open division: the submitter's model variant, same base model (named by the benchmark folder)
    "llama3_1-8b": "llama-3.1-8b", "llama3_1-8b-edge": "llama-3.1-8b", "llama3_1-405b": "llama-3.1-405b",
    "llama3_1-70b-fp8_dyn": "llama-3.1-70b", "llama3_1-70b-fp8_pre": "llama-3.1-70b",
    "llama3_1-70b-fp8_trtllm": "llama-3.1-70b", "llama2-70b-fp8_quark": "llama-2-70b",
}
"""Benchmark folder → model id. Not mapped (their weights are not the base model's): ``*_pruned``, ``*_finetuned``."""

PRUNED_SYSTEM = re.compile(r"pruned", re.IGNORECASE)
"""A system name that says its model was pruned (v4.1 open: NVIDIA ``H200-SXM-141GBx1_TRT_DepthPruned``,
``Orin_TRT_DepthPruned`` run a Llama 2 70B with layers and MLP dimensions removed under the ``llama2-70b-99``
folder): the benchmark's model is not the one run, and no stored file states the pruned shape."""

LLM_BENCHMARK = re.compile(r"^(llama|mixtral|deepseek|gptj|gpt-oss|qwen3-vl)")
"""Benchmark folders that are LLMs (whisper, stable diffusion, wan, dlrm, resnet, … are not imported). The
vision-language qwen3-vl (v6.0) is an LLM decoder with image input; LoadGen reports it in samples/s only."""

SAMPLE_METRIC_BENCHMARKS = ("gptj-99", "gptj-99.9")
"""Benchmarks whose MLPerf metric is samples/s (LoadGen prints tokens/s only as '(inferred)' for them)."""

ACCELERATORS: dict[str, str] = {
    "AMD Instinct MI300X-NPS1-SPX-192GB-750W": "amd-mi300x", "AMD MI300X-NPS1-SPX-192GB-750W": "amd-mi300x",
    "AMD Instinct MI300X 192GB HBM3": "amd-mi300x", "AMD Instinct MI325X 256GB HBM3e": "amd-mi325x",
    "AMD Instinct MI355X 288GB HBM3e": "amd-mi355x",
    "NVIDIA B200-SXM-180GB": "nvidia-b200", "NVIDIA GeForce RTX 4090": "nvidia-rtx-4090",
    "NVIDIA H100-NVL-94GB": "nvidia-h100-nvl", "NVIDIA H100-PCIe-80GB": "nvidia-h100-pcie",
    "NVIDIA H100-SXM-80GB": "nvidia-h100-sxm", "NVIDIA H200-SXM-141GB": "nvidia-h200",
    "NVIDIA H200-SXM-141GB-CTS": "nvidia-h200", "Virtualized NVIDIA H200-SXM-141GB": "nvidia-h200",
    "NVIDIA L40S": "nvidia-l40s",
    "NVIDIA GH200 Grace Hopper Superchip 96GB": "nvidia-gh200-96gb",
    "NVIDIA GH200 Grace Hopper Superchip 144GB": "nvidia-gh200-144gb",
    "NVIDIA GB200": "nvidia-gb200", "NVIDIA GB300": "nvidia-gb300", "NVIDIA H200-NVL-141GB": "nvidia-h200-nvl",
    "NVIDIA Jetson AGX Orin 64G": "nvidia-jetson-agx-orin-64gb", "NVIDIA Jetson AGX Thor 128G": "nvidia-jetson-agx-thor",
    "NVIDIA RTX PRO 6000 Blackwell Server Edition": "nvidia-rtx-pro-6000-server",
    "NVIDIA B300-SXM-270GB": "nvidia-b300", "NVIDIA RTX PRO 4500 Blackwell": "nvidia-rtx-pro-4500",
    "AMD Instinct MI350X 288GB HBM3e": "amd-mi350x", "AMD Instinct MI350X": "amd-mi350x",
    "AMD Instinct MI355X 288GB HBM3E": "amd-mi355x", "AMD Instinct MI355X 288GB HBM3e (x87)": "amd-mi355x",
    "AMD Instinct MI355X 288GB HBM3e (x94)": "amd-mi355x",
    "Intel(R) Arc Pro(R) B50": "intel-arc-pro-b50", "Intel(R) Arc Pro(R) B60": "intel-arc-pro-b60",
    "Intel(R) Arc Pro(R) B70": "intel-arc-pro-b70",
}
"""``accelerator_model_name`` exactly as written → accelerator id. ``(x87)``/``(x94)`` count the system's GPUs
(the per-node count is ``accelerators_per_node``). A dual-GPU card (unless in ``BOARDS``), a mixed system, a power-capped part (its
ceiling differs from the record's) or ``N/A`` (CPU only) is not mapped."""

@dataclass(frozen=True)
class Board:
    """One board carrying ``gpus`` GPUs of one ledger accelerator, and the stored source that says so (``quote``)."""

    accelerator: str
    gpus: int
    source: str
    quote: str


_B60_DUAL = Board("intel-arc-pro-b60", 2, "kekepower-arc-pro-b60-dual-48g-turbo",
                  "Each Arc Pro B60 die carries 20 Xe cores, 20 RT units, and 24 GB of GDDR6 wired to a generous "
                  "192\u2011bit bus for 456 GB/s of bandwidth. Intel\u2019s clever trick is to mount two of these dies "
                  "on a single PCB")
BOARDS: dict[str, Board] = {"[MAXSUN] MS-Intel Arc Pro B60 Dual 48G Turbo": _B60_DUAL,
                            "MS-Intel Arc Pro B60 Dual 48G Turbo": _B60_DUAL}
"""``accelerator_model_name`` exactly as written → a multi-GPU board: ``accelerators_per_node`` counts boards, so
the system's GPU count is ``gpus × accelerators_per_node`` (``mlperf_system.SystemFile``), each GPU the board's
``accelerator`` (MAXSUN's Arc Pro B60 Dual 48G Turbo: two 24 GB B60 GPUs; v5.1 and v6.0 Intel systems)."""

ENGINES: tuple[tuple[str, str], ...] = (
    ("tensorrt-llm", "tensorrt-llm"), ("trt-llm", "tensorrt-llm"), ("sglang", "sglang"), ("vllm", "vllm"),
    ("tensorrt", "tensorrt"), ("pytorch", "pytorch"),
)
"""The first name (case-insensitive) the ``framework`` text contains → engine id (vLLM before PyTorch: a vLLM
stack lists both). TensorRT is NVIDIA's named framework; the system file does not say TensorRT-LLM."""

FORMATS: dict[str, str] = {"fp16": "fp16", "bf16": "bf16", "fp32": "fp32", "fp8": "fp8", "int8": "int8",
                           "int4": "int4", "uint4": "uint4", "mxfp4": "mxfp4", "fp4": "fp4"}
"""``weight_data_types`` (lower-cased) → format id. ``UNSET`` (the submitter stated none) and lists stay unknown
with the text."""


def model_of(benchmark: str, system: str) -> tuple[str | None, str]:
    """The model id a benchmark folder run by ``system`` maps to (None: unmatched) and the stated text naming it;
    a pruned system (``PRUNED_SYSTEM``) maps to none, its text saying why."""
    stated = f"MLPerf benchmark {benchmark}"
    base = MODELS.get(benchmark)
    if base is not None and PRUNED_SYSTEM.search(system):
        return None, (f"{stated} run by system {system}, whose name says the model was pruned: not {base}'s "
                      "shape or parameter count, and no stored file states the pruned one")
    return base, stated


def engine_of(framework: str) -> str | None:
    low = framework.lower()
    return next((eid for name, eid in ENGINES if name in low), None)


__all__ = ["ACCELERATORS", "BOARDS", "ENGINES", "FORMATS", "LLM_BENCHMARK", "MODELS", "PRUNED_SYSTEM", "SAMPLE_METRIC_BENCHMARKS",
           "Board", "engine_of", "model_of"]
