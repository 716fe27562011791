"""Reference records: accelerators, interconnects, weight/KV formats, engines and model architectures.

Every number is a ``Quantity`` with its source and basis (vendor spec / third party / derived), or ``Unknown``
with a reason. Units are fixed per field and stated in the field description.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from benchledger.schema.common import RecordBase
from benchledger.schema.provenance import MaybeQuantity, Quantity, StrictModel

Precision = Literal[
    "fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp6", "fp4", "int4", "mxfp4", "nvfp4"
]


INTEGER_PRECISIONS: frozenset[str] = frozenset({"int8", "int4"})
INTEGER_PEAK_UNITS: frozenset[str] = frozenset({"TOPS", "POPS"})
VENDORS: dict[str, str] = {"amd": "AMD", "apple": "Apple", "google": "Google", "intel": "Intel",
                           "nvidia": "NVIDIA", "qualcomm": "Qualcomm"}
"""Canonical spelling of each known vendor (lower case → name), so one vendor is one value in every view."""


class ComputePeak(StrictModel):
    """Peak tensor throughput at one precision."""

    precision: Precision
    tflops: Quantity = Field(description="TFLOP/s for floating-point precisions, TOPS for integer ones.")
    dense: bool = Field(description="False when the vendor figure assumes 2:4 structured sparsity.")

    @model_validator(mode="after")
    def _integer_peaks_in_tops(self) -> ComputePeak:
        integer = self.precision in INTEGER_PRECISIONS
        if integer != (self.tflops.unit in INTEGER_PEAK_UNITS):
            want = "TOPS (integer operations)" if integer else "TFLOP/s (floating-point operations)"
            raise ValueError(f"a {self.precision} peak is in {want}, not {self.tflops.unit}")
        return self


class Accelerator(RecordBase):
    """A GPU, NPU or SoC that runs inference."""

    kind: Literal["accelerator"]
    name: str
    vendor: str = Field(description="Canonical spelling for known vendors (AMD, Apple, Intel, NVIDIA, …).")
    architecture: str | None = None
    form_factor: str | None = None
    memory_gb: MaybeQuantity = Field(description="Device memory capacity in GB (unified memory: total).")
    memory_bandwidth_gbs: MaybeQuantity = Field(description="Peak memory bandwidth, GB/s, per device.")
    compute: list[ComputePeak] = Field(default_factory=list)
    tdp_w: MaybeQuantity | None = None
    interconnects: list[str] = Field(default_factory=list, description="Interconnect ids present on this part.")
    unified_memory: bool = False

    @model_validator(mode="after")
    def _vendor_canonical(self) -> Accelerator:
        canonical = VENDORS.get(self.vendor.lower())
        if canonical is not None and canonical != self.vendor:
            raise ValueError(f"vendor {self.vendor!r} is spelled {canonical!r} (one vendor, one name)")
        return self


class Interconnect(RecordBase):
    """A device-to-device or host link."""

    kind: Literal["interconnect"]
    name: str
    link_type: Literal["nvlink", "nvswitch", "pcie", "infinity-fabric", "xe-link", "ethernet", "ici", "other"]
    generation: str | None = None
    bandwidth_gbs: MaybeQuantity = Field(description="GB/s per device, in the direction stated below.")
    direction: Literal["unidirectional", "bidirectional"]


class Format(RecordBase):
    """A numeric format for weights or KV cache, with its real storage cost including scales."""

    kind: Literal["format"]
    name: str
    applies_to: list[Literal["weights", "kv-cache", "activations"]]
    bits_per_element: MaybeQuantity
    bytes_per_param: MaybeQuantity = Field(description="Bytes per parameter including block scales.")
    block_size: int | None = None
    scale_format: str | None = None


class FeatureClaim(StrictModel):
    """A feature an engine claims to support (support is not benefit: benefit lives in benchmark records)."""

    feature: str = Field(description="e.g. 'speculative-decoding', 'prefix-caching', 'fp8-kv-cache'.")
    methods: list[str] = Field(default_factory=list, description="e.g. ['mtp', 'eagle3', 'draft-model', 'ngram'].")
    quote: str | None = None
    source: str | None = None


class Engine(RecordBase):
    """An inference engine and the features it claims."""

    kind: Literal["engine"]
    name: str
    repo: str | None = None
    claims: list[FeatureClaim] = Field(default_factory=list)
    spec_metrics: list[str] = Field(default_factory=list, description="Metric names it exposes for acceptance.")


class ModelArch(RecordBase):
    """A model architecture: what a decode step reads and computes."""

    kind: Literal["model"]
    name: str
    hf_id: str | None = None
    attention: Literal["gqa", "mha", "mla"] = "gqa"
    hidden_size: MaybeQuantity
    layers_full_attention: MaybeQuantity = Field(description="Layers with full (global) attention.")
    layers_sliding: MaybeQuantity | None = Field(default=None, description="Sliding-window attention layers.")
    sliding_window: MaybeQuantity | None = Field(default=None, description="Tokens kept by sliding layers.")
    layers_linear: MaybeQuantity | None = Field(default=None, description="Linear-attention / SSM layers.")
    num_heads: MaybeQuantity
    num_kv_heads: MaybeQuantity
    head_dim: MaybeQuantity
    intermediate_size: MaybeQuantity | None = None
    vocab_size: MaybeQuantity
    tied_embeddings: bool = False
    params_total: MaybeQuantity = Field(description="Total parameters (billions).")
    params_active: MaybeQuantity | None = Field(default=None, description="Active parameters per token (billions).")
    experts_total: MaybeQuantity | None = None
    experts_active: MaybeQuantity | None = None
    experts_shared: MaybeQuantity | None = None
    expert_intermediate_size: MaybeQuantity | None = None
    moe_layers: MaybeQuantity | None = None
    recurrent_state_mib: MaybeQuantity | None = Field(default=None, description="Recurrent state per sequence, MiB.")
    mla_kv_lora_rank: MaybeQuantity | None = None
    mla_rope_dim: MaybeQuantity | None = None
    mtp_layers: MaybeQuantity | None = None
    mtp_params: MaybeQuantity | None = Field(
        default=None, description="Parameters of the MTP module(s) read per draft step besides the lm_head (billions)."
    )


__all__ = [
    "INTEGER_PEAK_UNITS",
    "INTEGER_PRECISIONS",
    "VENDORS",
    "Accelerator",
    "ComputePeak",
    "Engine",
    "FeatureClaim",
    "Format",
    "Interconnect",
    "ModelArch",
    "Precision",
]
