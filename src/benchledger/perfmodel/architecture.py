"""What one decode or verify step of a model reads and computes: ``ModelSpec`` built from a ``ModelArch`` record.

All counts are plain numbers (parameters, not billions; bytes, not MiB). The rules:

- KV per token over full-attention layers only; sliding-window layers are capped at their window;
  MLA stores one latent of ``d_c + d_r`` elements per layer (no separate K and V).
- Embedding tables are not streamed at decode; the lm_head is (``V·H``), once per forward.
- MoE layers stream the union of touched experts ``E_u(N) = E·(1 − (1 − k_e/E)^N)`` for N routed tokens.
- Linear-attention / SSM layers carry a constant recurrent state per sequence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from benchledger.perfmodel.errors import MissingInputError
from benchledger.schema import ModelArch, Quantity, Unknown

GIB = 1024**3
MIB = 1024**2


@dataclass(frozen=True)
class ModelSpec:
    """Architecture numbers of one model, in plain units (parameters as counts, state in bytes)."""

    id: str
    hidden: int
    layers_full: int
    num_heads: int
    num_kv_heads: int
    head_dim: int
    vocab: int
    params_total: float
    params_active: float | None = None
    attention: str = "gqa"
    layers_sliding: int = 0
    sliding_window: int | None = None
    layers_linear: int = 0
    tied_embeddings: bool = False
    experts_total: int = 0
    experts_active: int = 0
    experts_shared: int = 0
    expert_intermediate: int = 0
    moe_layers: int = 0
    recurrent_state_bytes: float = 0.0
    mla_kv_lora_rank: int = 0
    mla_rope_dim: int = 0
    mtp_layers: int = 0
    mtp_params: float | None = None
    unknown_fields: tuple[str, ...] = ()
    """Optional record fields that were unknown and taken as absent (listed in predictions' assumptions)."""

    # --- layers -------------------------------------------------------------------------------------------
    @property
    def n_layers(self) -> int:
        """Every decoder layer (full + sliding + linear)."""
        return self.layers_full + self.layers_sliding + self.layers_linear

    @property
    def is_moe(self) -> bool:
        return self.experts_total > 0 and self.moe_layers > 0

    # --- KV cache -----------------------------------------------------------------------------------------
    @property
    def kv_elements_per_token_layer(self) -> int:
        """Cache elements one token adds to one attention layer (K+V, or the MLA latent)."""
        if self.attention == "mla":
            return self.mla_kv_lora_rank + self.mla_rope_dim
        return 2 * self.num_kv_heads * self.head_dim

    def kv_bytes_per_token(self, kv_bytes: float) -> float:
        """KV bytes one token adds over the full-attention layers (sliding layers excluded)."""
        return self.kv_elements_per_token_layer * self.layers_full * kv_bytes

    def kv_bytes_per_sequence(self, context: float, kv_bytes: float) -> float:
        """KV bytes one sequence reads per step at ``context`` tokens, sliding layers capped at their window."""
        window = self.sliding_window if self.sliding_window is not None else context
        tokens = self.layers_full * context + self.layers_sliding * min(context, window)
        return self.kv_elements_per_token_layer * tokens * kv_bytes

    def attention_flops_per_query(self, context: float) -> float:
        """Attention FLOPs of one query token over all attention layers at ``context``."""
        window = self.sliding_window if self.sliding_window is not None else context
        tokens = self.layers_full * context + self.layers_sliding * min(context, window)
        if self.attention == "mla":
            per_kv = 2 * self.num_heads * (self.mla_kv_lora_rank + self.mla_rope_dim)
            per_kv += 2 * self.num_heads * self.mla_kv_lora_rank
            return per_kv * tokens
        return 4.0 * self.num_heads * self.head_dim * tokens

    # --- weights ------------------------------------------------------------------------------------------
    @property
    def lm_head_params(self) -> float:
        return float(self.vocab * self.hidden)

    @property
    def routed_expert_params(self) -> float:
        """Parameters of one routed expert (gated FFN: up, gate, down)."""
        return 3.0 * self.hidden * self.expert_intermediate

    def expert_union(self, tokens: float) -> float:
        """Expected distinct routed experts touched per MoE layer by ``tokens`` routed tokens."""
        if not self.is_moe:
            return 0.0
        e, k = float(self.experts_total), float(self.experts_active)
        return e * (1.0 - math.pow(1.0 - k / e, max(tokens, 1.0)))

    @property
    def body_params_active(self) -> float:
        """Active parameters per token excluding embedding and lm_head (the GEMM FLOPs per token / 2)."""
        active = self.params_active if self.params_active is not None else self.params_total
        embed = 0.0 if self.tied_embeddings else self.lm_head_params
        return max(active - embed - self.lm_head_params, 0.0)

    @property
    def _body_dense_params(self) -> float:
        """Body parameters read whatever the routing (attention, dense FFN, shared experts, router)."""
        routed_active = self.moe_layers * self.experts_active * self.routed_expert_params if self.is_moe else 0.0
        return max(self.body_params_active - routed_active, 0.0)

    def body_params_streamed(self, tokens: float, union: str = "expected") -> float:
        """Body parameters one forward over ``tokens`` routed tokens reads (MoE: dense part + expert union).

        ``union='expected'`` uses ``E_u(N)``; ``union='min'`` uses only ``k_e`` experts per layer (a strict lower
        bound whatever the routing, used by the physical ceiling).
        """
        if not self.is_moe:
            return self.body_params_active
        touched = self.expert_union(tokens) if union == "expected" else float(self.experts_active)
        return self._body_dense_params + self.moe_layers * touched * self.routed_expert_params

    @property
    def mtp_layer_params(self) -> float:
        """Parameters one MTP draft step reads besides the lm_head (given, or one average layer + 2H² proj)."""
        if self.mtp_params is not None:
            return self.mtp_params
        return self.body_params_active / max(self.n_layers, 1) + 2.0 * self.hidden * self.hidden

    @property
    def mtp_params_estimated(self) -> bool:
        return self.mtp_params is None

    @property
    def allreduces_per_forward(self) -> int:
        """Tensor-parallel all-reduces per forward: after attention/mixer and after the FFN of every layer."""
        return 2 * self.n_layers


def gated_delta_state_mib(layers_linear: int, value_heads: int, key_head_dim: int, value_head_dim: int,
                          state_bytes: float) -> float:
    """Recurrent (delta-rule) state of one sequence in MiB: ``layers × V-heads × d_k × d_v × bytes``.

    A Gated DeltaNet layer keeps one ``d_k × d_v`` matrix per value head; the short
    convolution state (a few KiB per layer) is left out. Qwen3.5/3.6/3.8-27B: 48 × 48 × 128 × 128 × 4 B = 144 MiB.
    """
    return layers_linear * value_heads * key_head_dim * value_head_dim * state_bytes / MIB


def _number(record: ModelArch, field: str, *, required: bool, default: float = 0.0) -> float:
    value = getattr(record, field)
    if value is None or isinstance(value, Unknown):
        if required:
            why = value.unknown if isinstance(value, Unknown) else "absent"
            raise MissingInputError(record.id, field, f"needed by the physics model but {why}")
        return default
    assert isinstance(value, Quantity)
    return float(value.value)


OPTIONAL_FIELDS = ("params_active", "layers_sliding", "sliding_window", "layers_linear", "experts_total",
                   "experts_active", "expert_intermediate_size", "moe_layers", "recurrent_state_mib", "mtp_layers",
                   "mtp_params")


def _unknown_optional(record: ModelArch) -> tuple[str, ...]:
    return tuple(f for f in OPTIONAL_FIELDS if isinstance(getattr(record, f), Unknown))


def _count(record: ModelArch, field: str, *, required: bool = False) -> int:
    return round(_number(record, field, required=required))


def model_from_record(record: ModelArch) -> ModelSpec:
    """Build a ``ModelSpec`` from a ledger ``ModelArch`` record (billions → counts, MiB → bytes)."""
    params_active = _number(record, "params_active", required=False, default=-1.0)
    mtp_params_b = _number(record, "mtp_params", required=False, default=-1.0)
    mtp_layers = _count(record, "mtp_layers")
    attention = record.attention
    return ModelSpec(
        id=record.id,
        attention=attention,
        hidden=_count(record, "hidden_size", required=True),
        layers_full=_count(record, "layers_full_attention", required=True),
        layers_sliding=_count(record, "layers_sliding"),
        sliding_window=_count(record, "sliding_window") or None,
        layers_linear=_count(record, "layers_linear"),
        num_heads=_count(record, "num_heads", required=True),
        num_kv_heads=_count(record, "num_kv_heads", required=attention != "mla"),
        head_dim=_count(record, "head_dim", required=attention != "mla"),
        vocab=_count(record, "vocab_size", required=True),
        tied_embeddings=record.tied_embeddings,
        params_total=_number(record, "params_total", required=True) * 1e9,
        params_active=params_active * 1e9 if params_active >= 0 else None,
        experts_total=_count(record, "experts_total"),
        experts_active=_count(record, "experts_active"),
        experts_shared=_count(record, "experts_shared"),
        expert_intermediate=_count(record, "expert_intermediate_size"),
        moe_layers=_count(record, "moe_layers"),
        recurrent_state_bytes=_number(record, "recurrent_state_mib", required=False) * MIB,
        mla_kv_lora_rank=_count(record, "mla_kv_lora_rank", required=attention == "mla"),
        mla_rope_dim=_count(record, "mla_rope_dim", required=attention == "mla"),
        mtp_layers=mtp_layers,
        mtp_params=mtp_params_b * 1e9 if mtp_params_b >= 0 else None,
        unknown_fields=_unknown_optional(record),
    )


__all__ = ["GIB", "MIB", "ModelSpec", "gated_delta_state_mib", "model_from_record"]
