"""Engine kernel facts the roofline needs beyond bytes and FLOPs, each taken from a stored ledger source.

A llama.cpp forward over a few rows (a verify of T ≤ 8 tokens, a batch of ≤ 8 sequences) multiplies its
block-quant weights with a matrix-vector kernel (``predict.GEMV_ROWS``). That kernel reads each weight once, but
it dequantises every block and redoes its dot products once per row, so on top of the one-row weight read each
extra row adds a share ``c`` of it: ``t(r) = t(1) · (1 + c·(r − 1))``. ``c`` is the backend's, from a stored
measurement of that kernel (``GEMV_ROW_COST``); llama.cpp runs Metal on Apple and CUDA on NVIDIA parts, while an
AMD part may run ROCm or Vulkan (the ledger does not record which), so AMD takes the smallest per-row cost any
stored AMD measurement shows; Intel (SYCL or Vulkan) has no stored measurement and costs no extra row.

A verify forward (``q_len = T > 1``) may leave the engine's decode attention kernel for its prefill kernel
(``VERIFY_KERNEL``): the verify attention then costs ``φ(T) = T^γ`` decode KV reads with γ of ``VERIFY_EXPONENT``,
stated by the engine's own sources instead of fitted (``predict.verify_params``).
"""

from __future__ import annotations

from dataclasses import dataclass

from benchledger.perfmodel.hardware import GGUF_MMQ_FAMILIES, TERA, HardwareSpec


@dataclass(frozen=True)
class RowCost:
    """Extra time of each row past the first, as a share of the one-row weight read, and where it is from."""

    share: float
    source: str
    """Ledger source id of the measurement."""
    derivation: str


def _slope(t1: float, tr: float, rows: int) -> float:
    """Per-extra-row share from the time of one row and of ``rows`` rows: (t_r / t_1 − 1) / (r − 1)."""
    return (tr / t1 - 1.0) / (rows - 1)


GEMV_ROW_COST: dict[tuple[str, str], RowCost] = {
    ("llama-cpp", "apple"): RowCost(
        _slope(53.1, 403.9, 8), "llama-cpp-pr-29110-metal-small-batch-mat-vec",
        "Metal kernel_mul_mv_ext, q8_0 4096x14336: 53.1 us at n=1, 403.9 at n=8"),
    ("llama-cpp", "nvidia"): RowCost(
        _slope(1 / 105.29, 8 / 406.71, 8), "llama-cpp-pr-5434-cuda-mmvq-tiling",
        "CUDA mul_mat_vec_q, RTX 3090 llama 7B Q2_K_M pp512: 105.29 t/s at batch 1, 406.71 at batch 8"),
    ("llama-cpp", "amd"): RowCost(
        _slope(47.6, 94.5, 8), "mx-llama-cpp-issue-10-mi50-small-batch",
        "MI50 single card, Qwen3.8-27B Q8_0 forward: 47.6 ms at 1 token, 94.5 at 8 (the smallest AMD figure "
        "stored; the Vulkan RDNA3.5 figures of vulkan-rdna35-mat-vec-columns are larger)"),
}
"""(engine, hardware vendor) → per-extra-row cost of the engine's matrix-vector kernel on block-quant weights."""


def gemv_row_cost(engine: str | None, hardware_family: str) -> RowCost | None:
    """The row cost of ``engine`` on a part of ``hardware_family`` ('nvidia discrete' …), None when not stored."""
    vendor = hardware_family.split(" ")[0].lower()
    return GEMV_ROW_COST.get((engine or "", vendor))


@dataclass(frozen=True)
class Fp16Accumulate:
    """A part's dense FP16 tensor rate with FP16 accumulation, FLOP/s, and where it is from."""

    flops: float
    sources: tuple[str, ...]
    derivation: str


FP16_ACCUMULATE: dict[str, Fp16Accumulate] = {
    "nvidia-rtx-4090": Fp16Accumulate(
        330.3 * TERA, ("pytorch-issue-123157-ada-fp16-accumulate",),
        "RTX 4090: FP16 accumulation(330.3TFLOPS) and FP32 accumulation(165.2TFLOPS)"),
    "nvidia-rtx-4080": Fp16Accumulate(
        2 * 97.5 * TERA, ("ir-acc-nvidia-rtx-4080", "nvidia-forum-ada-geforce-fp32-accumulate-half-rate"),
        "RTX 4080: 2 × 97.5 (FP16 97.5 TFLOPS is with FP32 accumulate; fp32 accumulate is half-rate on geforce)"),
}
"""Accelerator id → its FP16-accumulate tensor rate where it differs from the record's fp16 peak (a GeForce part
runs FP32 accumulation at half rate, and its record's fp16 peak is that FP32-accumulate figure). cuBLAS GEMMs at
``CUBLAS_COMPUTE_16F`` (llama.cpp's old CUDA prompt path, ``engines/llamacpp.py``) run at this rate."""


def cublas_fp16_peak(hw: HardwareSpec) -> tuple[float | None, str]:
    """(FLOP/s, origin) of a 16-bit cuBLAS GEMM accumulating in FP16 on ``hw``: ``FP16_ACCUMULATE`` where stored,
    else the part's fp16 peak (parts whose FP16- and FP32-accumulate rates are equal, or not known apart)."""
    found = FP16_ACCUMULATE.get(hw.id)
    if found is not None:
        return found.flops, f"FP16-accumulate rate (record:{', record:'.join(found.sources)})"
    _, peak, how = hw.gemm_peak("fp16")
    return peak, how


def is_block_quant(format_id: str) -> bool:
    """A GGUF block-quant format (``q4-k-m``, ``q8-0``, ``iq4-xs``, ``ud-q4-k-xl``…): dequantised per row."""
    return format_id.split("-")[0].split("_")[0].lower() in GGUF_MMQ_FAMILIES


def gemv_rows_factor(rows: float, max_rows: int, share: float, format_id: str) -> float:
    """``1 + c·(rows − 1)`` for a block-quant matrix-vector product over ``1 < rows ≤ max_rows``, else 1."""
    if share <= 0.0 or not 1.0 < rows <= max_rows or not is_block_quant(format_id):
        return 1.0
    return 1.0 + share * (rows - 1.0)


VERIFY_EXPONENT = {"exact": 0.0, "prefill": 1.0}
"""Verify kernel → φ(T) exponent γ: an exact multi-query decode kernel reads the KV once for all T query tokens
(φ = 1); a prefill kernel reads it once per query (φ = T)."""


@dataclass(frozen=True)
class VerifyKernel:
    """Which attention kernel an engine's verify forward runs on a vendor's parts, and the source saying so."""

    kind: str
    """A key of ``VERIFY_EXPONENT``."""
    source: str
    """Ledger source id."""
    quote: str
    """The source's sentence, verbatim."""

    @property
    def exponent(self) -> float:
        return VERIFY_EXPONENT[self.kind]


VERIFY_KERNEL: dict[tuple[str, str], VerifyKernel] = {
    ("llm-scaler-vllm", "intel"): VerifyKernel(
        "prefill", "llm-scaler-657",
        "In b3.1, all attention workloads with `q_len > 1` are dispatched to the `chunk-prefill` path, rather than "
        "a verification kernel optimized for a small number of query tokens with a long KV cache."),
}
"""(engine, hardware vendor) → the verify attention kernel its sources state; absent: fitted φ (calibration)."""


def verify_kernel(engine: str | None, hardware_family: str) -> VerifyKernel | None:
    """The verify kernel ``engine``'s sources state on a part of ``hardware_family``, None when none is stored."""
    return VERIFY_KERNEL.get((engine or "", hardware_family.split(" ")[0].lower()))


__all__ = [
    "FP16_ACCUMULATE",
    "GEMV_ROW_COST",
    "VERIFY_EXPONENT",
    "VERIFY_KERNEL",
    "Fp16Accumulate",
    "RowCost",
    "VerifyKernel",
    "cublas_fp16_peak",
    "gemv_row_cost",
    "gemv_rows_factor",
    "is_block_quant",
    "verify_kernel",
]
