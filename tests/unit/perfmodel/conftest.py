"""Test inputs for the physics model: architectures (from the models' public configs) and parts.

These are test inputs built directly as dataclasses, not ledger data.
"""

from __future__ import annotations

import pytest

from benchledger.perfmodel.architecture import MIB, ModelSpec
from benchledger.perfmodel.hardware import HardwareSpec


@pytest.fixture
def llama8b() -> ModelSpec:
    return ModelSpec(id="llama-3.1-8b", hidden=4096, layers_full=32, num_heads=32, num_kv_heads=8, head_dim=128,
                     vocab=128256, params_total=8.03e9)


@pytest.fixture
def qwen27b() -> ModelSpec:
    return ModelSpec(id="qwen3.8-27b", hidden=5120, layers_full=16, layers_linear=48, num_heads=24, num_kv_heads=4,
                     head_dim=256, vocab=248320, params_total=27e9, recurrent_state_bytes=144 * MIB, mtp_layers=1,
                     mtp_params=0.42e9)


@pytest.fixture
def deepseek_v3() -> ModelSpec:
    return ModelSpec(id="deepseek-v3", attention="mla", hidden=7168, layers_full=61, num_heads=128, num_kv_heads=128,
                     head_dim=128, vocab=129280, params_total=671e9, params_active=37e9, experts_total=256,
                     experts_active=8, experts_shared=1, expert_intermediate=2048, moe_layers=58,
                     mla_kv_lora_rank=512, mla_rope_dim=64)


@pytest.fixture
def gemma3_27b() -> ModelSpec:
    return ModelSpec(id="gemma-3-27b", hidden=5376, layers_full=10, layers_sliding=52, sliding_window=1024,
                     num_heads=32, num_kv_heads=16, head_dim=128, vocab=262144, params_total=27e9,
                     tied_embeddings=True)


@pytest.fixture
def h100() -> HardwareSpec:
    return HardwareSpec("nvidia-h100-sxm", 3350e9, {"bf16": 989e12, "fp8": 1979e12}, link_bandwidth=450e9)


@pytest.fixture
def gb10() -> HardwareSpec:
    return HardwareSpec("nvidia-gb10", 273e9, {"fp4": 500e12})


@pytest.fixture
def b60x2() -> HardwareSpec:
    return HardwareSpec("intel-arc-pro-b60", 456e9, {"bf16": 98.3e12, "int8": 196.6e12}, count=2)
