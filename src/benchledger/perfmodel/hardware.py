"""The hardware side of the roofline: ``HardwareSpec`` built from an ``Accelerator`` (and its interconnects).

Peaks are stored dense, in FLOP/s per device. A vendor figure that assumes 2:4 sparsity is halved, and the
halving is kept in ``notes`` so ``predict`` can list it as an assumption. Bandwidth is peak memory bandwidth in
bytes/s per device; the link is the fastest known device-to-device interconnect, per direction.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from benchledger.perfmodel.errors import MissingInputError
from benchledger.schema import Accelerator, Interconnect, Quantity

GB = 1e9
TERA = 1e12

# Which tensor precisions a GEMM with these weights can run at, best first (W8A8 / W4A4 when the part has the
# peak, otherwise weight-only with 16-bit math). Keys are matched against the format id's leading word.
GEMM_PRECISIONS: dict[str, tuple[str, ...]] = {
    "bf16": ("bf16", "fp16"),
    "fp16": ("fp16", "bf16"),
    "fp32": ("fp32", "tf32"),
    "fp8": ("fp8", "bf16", "fp16"),
    "int8": ("int8", "bf16", "fp16"),
    "nvfp4": ("nvfp4", "fp4", "bf16", "fp16"),
    "mxfp4": ("mxfp4", "fp4", "bf16", "fp16"),
    "fp4": ("fp4", "bf16", "fp16"),
}
"""Weight format family → tensor precisions its GEMMs may use. Any other family (int4, GGUF k-quants…) is
weight-only: its GEMMs run in bf16/fp16."""
WEIGHT_ONLY = ("bf16", "fp16")
GGUF_MMQ_FAMILIES = ("q2", "q3", "q4", "q5", "q6", "q8", "iq1", "iq2", "iq3", "iq4", "ud")
"""Leading words of GGUF block-quant format ids (``q4-k-m``, ``q8-0``, ``iq4-xs``, ``ud-q4-k-xl``…). ggml's MMQ
kernels quantize the activations to q8_1 and multiply with int8 dot products / int8 tensor-core MMA
(``ggml-cuda/mmq.cuh``), so these GEMMs run at the part's int8 peak where its record publishes one; where it does
not (no int8 matrix units stated), at the 16-bit peak, never at an int8 peak derived by ratio."""

# Fallback scaling between precisions when a part publishes one but not another (dense tensor rates).
PRECISION_RATIO: dict[str, float] = {
    "fp32": 0.125, "tf32": 0.5, "bf16": 1.0, "fp16": 1.0, "fp8": 2.0, "int8": 2.0,
    "fp6": 4.0, "fp4": 4.0, "nvfp4": 4.0, "mxfp4": 4.0, "int4": 4.0,
}


@dataclass(frozen=True)
class HardwareSpec:
    """One accelerator type in a group of ``count`` devices."""

    id: str
    bandwidth: float
    """Peak memory bandwidth per device, bytes/s."""
    peaks: dict[str, float] = field(default_factory=dict)
    """Dense tensor peak per precision, FLOP/s per device."""
    count: int = 1
    link_bandwidth: float | None = None
    """Device-to-device bandwidth per direction, bytes/s (None: unknown)."""
    link_id: str | None = None
    notes: tuple[str, ...] = ()
    """How derived peaks were obtained (e.g. sparse figure halved)."""
    memory: float | None = None
    """Device memory, bytes (None: unknown)."""
    family: str = "unknown"
    """Vendor and memory kind, e.g. 'nvidia discrete', 'apple unified' (groups parts for pooled calibration)."""
    architecture: str = ""
    """The record's architecture, lower-case (e.g. 'ada lovelace', 'hopper'); '' when not stated."""

    def with_count(self, count: int) -> HardwareSpec:
        return replace(self, peaks=dict(self.peaks), count=count)

    def gemm_peak(self, weight_format: str) -> tuple[str, float | None, str]:
        """(precision, dense FLOP/s per device or None, how it was chosen) for GEMMs with these weights."""
        family = weight_format.split("-")[0].split("_")[0].lower()
        if family in GGUF_MMQ_FAMILIES and "int8" in self.peaks:
            return "int8", self.peaks["int8"], f"{self.id} int8 peak (GGUF {weight_format}: ggml MMQ int8 GEMMs)"
        candidates = GEMM_PRECISIONS.get(family, WEIGHT_ONLY)
        for precision in candidates:
            if precision in self.peaks:
                return precision, self.peaks[precision], f"{self.id} {precision} peak"
        if not self.peaks:
            return candidates[-1], None, f"{self.id} publishes no tensor peak: compute terms omitted"
        # derive from any published precision, scaled by the usual dense ratio (stated as an assumption)
        target = candidates[-1] if candidates == WEIGHT_ONLY else candidates[0]
        source, peak = max(self.peaks.items(), key=lambda kv: kv[1] / PRECISION_RATIO.get(kv[0], 1.0))
        scaled = peak * PRECISION_RATIO.get(target, 1.0) / PRECISION_RATIO.get(source, 1.0)
        return target, scaled, f"{self.id} {target} peak derived from its {source} peak by the usual dense ratio"


def _value(q: object) -> float | None:
    return float(q.value) if isinstance(q, Quantity) else None


def hardware_from_records(
    accelerator: Accelerator, interconnects: Iterable[Interconnect] = (), count: int = 1
) -> HardwareSpec:
    """Build a ``HardwareSpec`` from ledger records; raises ``MissingInputError`` when bandwidth is unknown."""
    bandwidth = _value(accelerator.memory_bandwidth_gbs)
    if bandwidth is None:
        raise MissingInputError(accelerator.id, "memory_bandwidth_gbs", "needed by the roofline but unknown")
    peaks: dict[str, float] = {}
    notes: list[str] = []
    for peak in accelerator.compute:
        tflops = _value(peak.tflops)
        if tflops is None:
            continue
        dense = tflops if peak.dense else tflops / 2.0
        if not peak.dense:
            notes.append(f"{peak.precision} peak {tflops:g} TFLOP/s is a sparse figure: halved to {dense:g}")
        peaks[peak.precision] = max(peaks.get(peak.precision, 0.0), dense * TERA)
    link_bw: float | None = None
    link_id: str | None = None
    for link in interconnects:
        bw = _value(link.bandwidth_gbs)
        if bw is None:
            continue
        per_direction = bw / 2.0 if link.direction == "bidirectional" else bw
        if link_bw is None or per_direction * GB > link_bw:
            link_bw, link_id = per_direction * GB, link.id
    return HardwareSpec(
        id=accelerator.id, bandwidth=bandwidth * GB, peaks=peaks, count=count,
        link_bandwidth=link_bw, link_id=link_id, notes=tuple(notes),
        memory=None if (mem := _value(accelerator.memory_gb)) is None else mem * GB,
        family=f"{accelerator.vendor.lower()} {'unified' if accelerator.unified_memory else 'discrete'}",
        architecture=(accelerator.architecture or "").lower(),
    )


__all__ = ["GEMM_PRECISIONS", "GGUF_MMQ_FAMILIES", "HardwareSpec", "hardware_from_records"]
