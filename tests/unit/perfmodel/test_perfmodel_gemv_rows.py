"""A llama.cpp matrix-vector product over a few rows costs a share of the one-row weight read per extra row.

The shares are derived from stored measurements (``perfmodel/kernels.py``); each case below is computed by hand.
"""

from __future__ import annotations

import pytest
from perfmodel_inputs import BF16

from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.perfmodel.architecture import ModelSpec
from benchledger.perfmodel.formats import FormatSpec
from benchledger.perfmodel.hardware import HardwareSpec
from benchledger.perfmodel.kernels import GEMV_ROW_COST, gemv_row_cost, gemv_rows_factor
from benchledger.perfmodel.predict import Params, Scenario, predict
from benchledger.perfmodel.roofline import IDEAL, StepConfig, forward_terms
from benchledger.perfmodel.specdec import SpecConfig

Q4KM = FormatSpec("q4-k-m", 0.5625)
Q6K = FormatSpec("q6-k", 0.8203)


def test_row_shares_are_the_stored_measurements_slopes() -> None:
    # Metal mul_mv_ext q8_0: 53.1 us at n=1, 403.9 us at n=8 -> (403.9/53.1 - 1)/7
    assert GEMV_ROW_COST[("llama-cpp", "apple")].share == pytest.approx(0.94377, abs=1e-5)
    # CUDA mmvq RTX 3090: 105.29 t/s at batch 1 (9.4976 ms), 406.71 t/s at batch 8 (19.670 ms) -> 0.15301
    assert GEMV_ROW_COST[("llama-cpp", "nvidia")].share == pytest.approx(0.15301, abs=1e-5)
    # MI50 single card: 47.6 ms at 1 token, 94.5 ms at 8 -> (94.5/47.6 - 1)/7
    assert GEMV_ROW_COST[("llama-cpp", "amd")].share == pytest.approx(0.14076, abs=1e-5)
    assert gemv_row_cost("llama-cpp", "intel discrete") is None  # no stored measurement: no extra cost
    assert gemv_row_cost("vllm", "nvidia discrete") is None


def test_every_share_cites_a_stored_source_holding_its_numbers() -> None:
    sources = bundled_ledger_dir() / "sources"
    for cost in GEMV_ROW_COST.values():
        excerpt = (sources / f"{cost.source}.md").read_text(encoding="utf-8")
        numbers = [w.strip(",:()") for w in cost.derivation.split() if any(ch.isdigit() for ch in w)]
        for number in numbers:
            if number.replace(".", "").isdigit():
                assert number in excerpt, (cost.source, number)


def test_factor_applies_to_block_quants_within_the_kernel_rows_only() -> None:
    assert gemv_rows_factor(3, 8, 0.5, "q4-k-m") == pytest.approx(2.0)
    assert gemv_rows_factor(1, 8, 0.5, "q4-k-m") == 1.0
    assert gemv_rows_factor(9, 8, 0.5, "q4-k-m") == 1.0  # past the kernel: the GEMM path, costed by FLOPs
    assert gemv_rows_factor(3, 8, 0.5, "bf16") == 1.0  # float weights are not dequantised per row
    assert gemv_rows_factor(3, 0, 0.5, "q4-k-m") == 1.0  # engine without the kernel


def test_a_verify_of_three_rows_on_metal_reads_the_weights_once_but_pays_each_row() -> None:
    model = ModelSpec(id="tiny", hidden=1000, layers_full=10, num_heads=8, num_kv_heads=8, head_dim=125,
                      vocab=1000, params_total=1.0e9)
    apple = HardwareSpec("apple-m4", 100e9, {}, family="apple unified")
    share = GEMV_ROW_COST[("llama-cpp", "apple")].share
    cfg = StepConfig(model, apple, Q4KM, BF16, Q6K, batch=1, context=0, query_tokens=3, gemv_rows=8,
                     gemv_row_cost=share)
    weights = next(t for t in forward_terms(cfg, IDEAL) if t.name == "weights")
    one_row = model.body_params_streamed(3, "expected") * 0.5625 / 100e9
    assert weights.bytes == pytest.approx(model.body_params_streamed(3, "expected") * 0.5625)  # read once
    assert weights.seconds == pytest.approx(one_row * (1 + 2 * share))  # 1 + 2 × 0.94377 = 2.8875 one-row reads
    head = next(t for t in forward_terms(cfg, IDEAL) if t.name == "lm_head")
    assert head.seconds == pytest.approx(1e6 * 0.8203 / 100e9 * (1 + 2 * share))


def test_predict_costs_the_rows_on_llama_cpp_and_names_the_source(qwen27b: ModelSpec) -> None:
    rtx = HardwareSpec("nvidia-rtx-3090", 936e9, {"fp16": 71e12}, family="nvidia discrete")
    spec = SpecConfig("mtp", 2, acceptance_length=2.5)
    with_rows = predict(Scenario(qwen27b, rtx, Q4KM, BF16, Q6K, context=1000, concurrency=1, engine="llama-cpp",
                                 spec=spec), Params())
    cost = next(a for a in with_rows.assumptions if a.name == "gemv_row_cost")
    assert cost.origin == "record:llama-cpp-pr-5434-cuda-mmvq-tiling"
    intel = HardwareSpec("intel-arc-pro-b70", 608e9, {"bf16": 98e12}, family="intel discrete")
    no_rows = predict(Scenario(qwen27b, intel, Q4KM, BF16, Q6K, context=1000, concurrency=1, engine="llama-cpp",
                               spec=spec), Params())
    assert all(a.name != "gemv_row_cost" for a in no_rows.assumptions)
    # the plain step has one row: the cost touches only the verify, so the speedup falls by the verify's growth
    w = with_rows.step.term("weights")
    assert w is not None and "matrix-vector × 1.31" in w.detail  # 1 + 2 × 0.15301 = 1.306
    assert with_rows.baseline_step is not None
    base_w = with_rows.baseline_step.term("weights")
    assert base_w is not None and w.seconds == pytest.approx(base_w.seconds * (1 + 2 * 0.15301), rel=1e-4)
