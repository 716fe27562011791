"""Architecture terms against hand-computed values."""

from __future__ import annotations

import pytest

from benchledger.perfmodel.architecture import MIB, ModelSpec

KIB = 1024


def test_kv_bytes_per_token_llama_8b_bf16_is_128_kib(llama8b: ModelSpec) -> None:
    # 2 (K,V) · 8 kv heads · 128 dim · 32 layers · 2 bytes
    assert llama8b.kv_bytes_per_token(2.0) == 128 * KIB


def test_kv_bytes_per_token_qwen27b_counts_only_the_16_full_attention_layers(qwen27b: ModelSpec) -> None:
    assert qwen27b.kv_bytes_per_token(2.0) == 64 * KIB
    assert qwen27b.kv_bytes_per_token(1.0) == 32 * KIB  # fp8 KV halves it
    assert qwen27b.n_layers == 64


def test_mla_kv_is_one_latent_per_layer(deepseek_v3: ModelSpec) -> None:
    # (512 + 64) elements · 61 layers · 2 bytes = 70272 B = 68.6 KiB
    assert deepseek_v3.kv_bytes_per_token(2.0) == 576 * 61 * 2
    assert round(deepseek_v3.kv_bytes_per_token(2.0) / KIB, 1) == 68.6


def test_sliding_layers_are_capped_at_their_window(gemma3_27b: ModelSpec) -> None:
    per_layer_token = 2 * 16 * 128 * 2
    assert gemma3_27b.kv_bytes_per_token(2.0) == 10 * per_layer_token == 80 * KIB
    at_50k = gemma3_27b.kv_bytes_per_sequence(50_000, 2.0)
    assert at_50k == per_layer_token * (10 * 50_000 + 52 * 1024)
    at_500 = gemma3_27b.kv_bytes_per_sequence(500, 2.0)
    assert at_500 == per_layer_token * 62 * 500


def test_expert_union_grows_from_top_k_toward_all_experts(deepseek_v3: ModelSpec) -> None:
    assert deepseek_v3.expert_union(1) == pytest.approx(8.0)
    # E·(1 − (1 − k/E)^N) at N = 16
    assert deepseek_v3.expert_union(16) == pytest.approx(256 * (1 - (1 - 8 / 256) ** 16))
    assert deepseek_v3.expert_union(4096) == pytest.approx(256.0, rel=1e-6)
    one = deepseek_v3.body_params_streamed(1)
    many = deepseek_v3.body_params_streamed(64)
    assert many > one
    assert deepseek_v3.body_params_streamed(64, "min") == pytest.approx(one)


def test_dense_streamed_params_exclude_the_untied_embedding(llama8b: ModelSpec) -> None:
    embed = 128256 * 4096
    assert llama8b.lm_head_params == embed
    assert llama8b.body_params_active == pytest.approx(8.03e9 - 2 * embed)


def test_mtp_params_estimate_when_not_given(qwen27b: ModelSpec) -> None:
    estimated = ModelSpec(**{**qwen27b.__dict__, "mtp_params": None})
    # one average layer (24.46e9 / 64) plus the 2H x H projection ≈ 0.43B, close to the published 0.42B
    assert estimated.mtp_layer_params == pytest.approx(0.42e9, rel=0.05)
    assert estimated.mtp_params_estimated and not qwen27b.mtp_params_estimated


def test_recurrent_state_of_qwen27b_is_144_mib(qwen27b: ModelSpec) -> None:
    # 48 GDN layers × 48 V-heads × 128 × 128 × fp32
    assert 48 * 48 * 128 * 128 * 4 == qwen27b.recurrent_state_bytes == 144 * MIB
