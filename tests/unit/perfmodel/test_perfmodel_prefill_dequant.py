"""A llama.cpp CUDA build from before 2024-06-24 multiplies block-quant weights by more than 32 rows on fp16
copies of them (source llama-cpp-ggml-cuda-cu-dc685be): the prefill pays a dequantization pass per micro-batch
and runs its GEMMs at the 16-bit peak, not the int8 peak of the MMQ kernels. Figures hand-computed."""

from __future__ import annotations

import datetime as dt

import pytest

from benchledger.ledger import Ledger, load_record
from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.perfmodel.architecture import ModelSpec
from benchledger.perfmodel.formats import FormatSpec
from benchledger.perfmodel.hardware import HardwareSpec
from benchledger.perfmodel.inputs import measured_before
from benchledger.perfmodel.predict import Scenario
from benchledger.perfmodel.prefill import prefill_time
from benchledger.perfmodel.roofline import Efficiency
from benchledger.schema import Benchmark

Q4 = FormatSpec("q4-k-m", 0.6)
FP16 = FormatSpec("fp16", 2.0)
BF16 = FormatSpec("bf16", 2.0)
ADA = HardwareSpec("rtx", 1000e9, {"fp16": 160e12, "int8": 640e12}, family="nvidia discrete",
                   architecture="ada lovelace")
OLD, NEW = dt.date(2024, 5, 12), dt.date(2024, 7, 1)
EFF = Efficiency(eta_m=0.8, eta_prefill=0.5, t0_prefill=0.0)


def _scenario(model: ModelSpec, hw: HardwareSpec, weights: FormatSpec = Q4, engine: str = "llama-cpp",
              published: dt.date | None = OLD) -> Scenario:
    return Scenario(model=model, hardware=hw, weights=weights, kv=BF16, lm_head=FormatSpec("q6-k", 0.82),
                    context=512.0, concurrency=1, engine=engine, measured_before=published)


def test_an_old_cuda_build_runs_a_block_quant_prompt_on_fp16_copies(llama8b: ModelSpec) -> None:
    step = prefill_time(_scenario(llama8b, ADA).step_config(), 512.0, EFF)
    params = llama8b.body_params_streamed(512.0)
    gemm, dequant = step.term("prefill_gemm"), step.term("prefill_dequant")
    assert gemm is not None and dequant is not None
    assert gemm.seconds == pytest.approx(2 * 512 * llama8b.body_params_active / (0.5 * 160e12))  # the fp16 peak
    assert dequant.bytes == pytest.approx(params * (0.6 + 2.0))  # read q4, write fp16, once per micro-batch
    assert dequant.seconds == pytest.approx(params * 2.6 / (0.8 * 1000e9))
    two = prefill_time(_scenario(llama8b, ADA).step_config(), 1024.0, EFF).term("prefill_dequant")
    assert two is not None and two.bytes == pytest.approx(2 * params * 2.6)  # two n_ubatch = 512 micro-batches


def test_a_current_build_other_vendors_and_16_bit_weights_keep_their_kernels(llama8b: ModelSpec) -> None:
    mmq = 2 * 512 * llama8b.body_params_active / (0.5 * 640e12)  # the int8 peak of the MMQ kernels
    amd = HardwareSpec("mi", 1000e9, {"fp16": 160e12, "int8": 640e12}, family="amd discrete", architecture="cdna3")
    pascal = HardwareSpec("p40", 346e9, {"fp16": 160e12, "int8": 640e12}, family="nvidia discrete",
                          architecture="pascal")
    for sc in (_scenario(llama8b, ADA, published=NEW), _scenario(llama8b, ADA, published=None),
               _scenario(llama8b, amd), _scenario(llama8b, pascal), _scenario(llama8b, ADA, engine="vllm")):
        step = prefill_time(sc.step_config(), 512.0, EFF)
        assert step.term("prefill_dequant") is None
        assert step.term("prefill_gemm").seconds == pytest.approx(mmq)  # type: ignore[union-attr]
    f16 = prefill_time(_scenario(llama8b, ADA, weights=FP16).step_config(), 512.0, EFF)
    assert f16.term("prefill_dequant") is None  # fp16 weights go to cuBLAS as they are
    short = prefill_time(_scenario(llama8b, ADA).step_config(), 32.0, EFF)
    assert short.term("prefill_dequant") is None  # ≤ MMQ_MAX_BATCH_SIZE = 32 rows: MMQ


def test_a_result_published_before_the_mmq_default_dates_its_build() -> None:
    record = load_record(bundled_ledger_dir() / "benchmarks" / "xiongjiedai-llama-3-70b-4090-24gb-x2-dbcd3659.md")
    assert isinstance(record, Benchmark)
    arm = next(a for a in record.arms if a.name == "q4-k-m-pp512")
    source = load_record(bundled_ledger_dir() / "sources"
                         / "xiongjiedai-gpu-benchmarks-on-llm-inference-readme-md-ee048e2d.md")
    assert measured_before(Ledger(bundled_ledger_dir(), {source.id: source}), arm) == OLD  # the README commit of 2024-05-12
    assert measured_before(Ledger(bundled_ledger_dir()), arm) is None
