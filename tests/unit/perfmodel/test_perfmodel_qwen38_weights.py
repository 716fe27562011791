"""The weight bytes the model streams for qwen3.8-27b, checked against a hand count of its matrices from the
architecture its record and stored sources quote (issue 14: predictions for the Intel family rose ~11 % when the
record gained ``intermediate_size`` 17408 and ``mtp_layers`` 1).

The model takes a dense model's body from ``params_total`` minus the untied embedding and lm_head
(``architecture.ModelSpec.body_params_active``); the MLP width enters no term, so the count below is the check:

- full-attention layer (16): q with its output gate 5120 × 2·24·256, k and v 5120 × 4·256 each, o 24·256 × 5120;
- Gated DeltaNet layer (48): in_proj_qkvz 5120 × (2·16·128 + 2·48·128), in_proj_ba 5120 × 2·48, conv1d
  (2·16·128 + 48·128) × 4, out_proj 48·128 × 5120 (the linear_* dims are quoted in
  ledger/sources/mlxcel-qwen3-8-27b-text-config-0c21aed.md);
- gated MLP (64 layers): 3 matrices of 5120 × 17408;
- MTP (1 layer, counted once): one full-attention layer, one MLP and its 2H → H projection.

unsloth/Qwen3.8-27B-NVFP4, the checkpoint of the autobench GB10 NVFP4 records, is a mix its page states: NVFP4 on
the MLPs, FP8 on the attention and linear-attn projections and on the last 8 layers' MLPs, the conv path kept bf16
(ledger/formats/nvfp4-unsloth-qwen3.8-27b.md); uniform nvfp4 streamed 13.8 GB of the 17.8 GB it holds.
"""

from __future__ import annotations

import pytest
from tests.record_formulas import evaluate, numeric_inputs

from benchledger.ledger import Ledger
from benchledger.perfmodel.architecture import model_from_record
from benchledger.perfmodel.calibrate import observations
from benchledger.perfmodel.predict import Params, predict
from benchledger.perfmodel.roofline import IDEAL
from benchledger.schema import Benchmark, Format, ModelArch, Quantity

H, FFN, V = 5120, 17408, 248320
ATTN = H * 2 * 24 * 256 + 2 * H * 4 * 256 + 24 * 256 * H
GDN = H * (2 * 16 * 128 + 2 * 48 * 128) + H * 2 * 48 + (2 * 16 * 128 + 48 * 128) * 4 + 48 * 128 * H
MLP = 3 * H * FFN
BODY = 16 * ATTN + 48 * GDN + 64 * MLP
MTP = ATTN + MLP + 2 * H * H
CONV = (2 * 16 * 128 + 48 * 128) * 4
NVFP4, FP8, BF16 = 0.5625, 1.0, 2.0
UNSLOTH_MIX = 56 * MLP * NVFP4 + 8 * MLP * FP8 + 16 * ATTN * FP8 + 48 * (GDN - CONV) * FP8 + 48 * CONV * BF16
"""Bytes of the unsloth NVFP4 body: 8.42 GB of NVFP4 MLPs, 2.14 GB of FP8 MLPs, 7.24 GB of FP8 projections."""


def test_hand_count_of_the_matrices_matches_the_body_the_model_streams() -> None:
    record = next(r for r in Ledger.load().typed("model", ModelArch) if r.id == "qwen3.8-27b")
    spec = model_from_record(record)
    assert abs(BODY / 24.35e9 - 1.0) < 1e-3  # the hand count itself: 1.68 + 5.56 + 17.11 B
    assert abs((BODY + 2 * V * H) / 27e9 - 1.0) < 0.01  # with untied embedding and lm_head: the quoted 27B
    assert spec.body_params_active == pytest.approx(BODY, rel=0.01)  # 24.46 B: fp8 streams 24.5 GB per step
    assert spec.lm_head_params == V * H
    assert spec.mtp_layers == 1 and spec.mtp_layer_params == pytest.approx(MTP, rel=0.03)  # one layer, not 64


def test_the_unsloth_nvfp4_arms_stream_the_checkpoints_stated_mix_not_uniform_nvfp4() -> None:
    ledger = Ledger.load()
    fmt = next(r for r in ledger.typed("format", Format) if r.id == "nvfp4-unsloth-qwen3.8-27b")
    assert isinstance(fmt.bytes_per_param, Quantity)
    inputs = numeric_inputs(fmt.bytes_per_param.inputs or [])
    assert evaluate(fmt.bytes_per_param.formula or "", inputs) == pytest.approx(float(fmt.bytes_per_param.value),
                                                                                 rel=1e-5)
    assert float(fmt.bytes_per_param.value) == pytest.approx(UNSLOTH_MIX / BODY, rel=1e-5)
    records = [r for r in ledger.typed("benchmark", Benchmark) if r.id.startswith("autobench-qwen3.8-27b-nvfp4")]
    obs, _ = observations(ledger, unknown_context=1000.0, unknown_concurrency=1, records=records)
    assert len(obs) == 16
    for o in obs:
        weights = predict(o.scenario, Params(IDEAL)).step.term("weights")
        assert weights is not None
        assert weights.bytes == pytest.approx(UNSLOTH_MIX, rel=0.01), o.ref  # 17.8 GB; uniform nvfp4: 13.8 GB
