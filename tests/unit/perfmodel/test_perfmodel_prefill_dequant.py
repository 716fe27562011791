"""A llama.cpp CUDA build from before 2024-06-24 multiplies block-quant weights by more than 32 rows on fp16
copies of them (source llama-cpp-ggml-cuda-cu-dc685be): the prefill pays a dequantization pass per micro-batch
and runs its GEMMs at the 16-bit peak, not the int8 peak of the MMQ kernels; its cuBLAS GEMMs accumulate in fp16
(a GeForce part's FP16-accumulate rate), and without flash attention it materializes the attention scores
(source llama-cpp-llm-build-kqv-dc685be). Figures hand-computed."""

from __future__ import annotations

import datetime as dt

import pytest

from benchledger.ledger import Ledger, load_record
from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.perfmodel.architecture import ModelSpec
from benchledger.perfmodel.formats import FormatSpec
from benchledger.perfmodel.hardware import HardwareSpec
from benchledger.perfmodel.inputs import measured_before
from benchledger.perfmodel.kernels import FP16_ACCUMULATE, cublas_fp16_peak
from benchledger.perfmodel.predict import Scenario
from benchledger.perfmodel.prefill import prefill_time, score_elements
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
    assert measured_before(Ledger(bundled_ledger_dir(), {source.id: source}), record, arm) == OLD  # README of 2024-05-12
    assert measured_before(Ledger(bundled_ledger_dir()), record, arm) is None
    twin = load_record(bundled_ledger_dir() / "benchmarks" / "xiongjiedai-llama-3-8b-llama-cpp-nvidia-rtx-4090.md")
    assert isinstance(twin, Benchmark)  # its results quote the record's sources, not a source of their own
    older = load_record(bundled_ledger_dir() / "sources" / "xiongjiedai-gpu-benchmarks-readme-00dd2bd.md")
    pp = next(a for a in twin.arms if a.name == "q4km-pp512")
    assert measured_before(Ledger(bundled_ledger_dir(), {older.id: older}), twin, pp) == dt.date(2024, 5, 10)


def test_score_elements_count_each_micro_batch_against_the_cells_filled_so_far() -> None:
    assert score_elements(1024.0, 512) == 512 * 512 + 512 * 1024  # n_kv = 512, then 1024
    assert score_elements(300.0, 512) == 300 * 512  # n_kv padded to 256: 300 -> 512
    assert score_elements(512.0, 0) == 512 * 512  # one pass of the whole prompt


def test_an_old_build_without_flash_attention_pays_for_its_attention_scores(llama8b: ModelSpec) -> None:
    old = prefill_time(_scenario(llama8b, ADA).step_config(), 1024.0, EFF)
    scores = old.term("prefill_attention_scores")
    assert scores is not None
    elements = llama8b.num_heads * (llama8b.layers_full + llama8b.layers_sliding) * (512 * 512 + 512 * 1024)
    assert scores.bytes == pytest.approx(24.0 * elements)  # fp16 write, fp32 copy, softmax, fp16 copy: 24 B
    assert scores.seconds == pytest.approx(24.0 * elements / (0.8 * 1000e9))
    new = prefill_time(_scenario(llama8b, ADA, published=NEW).step_config(), 1024.0, EFF)
    assert new.term("prefill_attention_scores") is None  # a current build: fused (flash) attention assumed


def test_an_old_build_multiplies_at_the_fp16_accumulate_rate_of_a_geforce_part(llama8b: ModelSpec) -> None:
    rtx4090 = HardwareSpec("nvidia-rtx-4090", 1008e9, {"fp16": 165.2e12, "int8": 660.6e12},
                           family="nvidia discrete", architecture="ada lovelace")
    assert cublas_fp16_peak(rtx4090)[0] == pytest.approx(330.3e12)
    assert cublas_fp16_peak(ADA)[0] == pytest.approx(160e12)  # not in the table: the record's fp16 peak
    for weights in (Q4, FP16):  # dequantized block quants and fp16 weights both go to cuBLAS at COMPUTE_16F
        step = prefill_time(_scenario(llama8b, rtx4090, weights=weights).step_config(), 512.0, EFF)
        gemm = step.term("prefill_gemm")
        assert gemm is not None
        assert gemm.seconds == pytest.approx(2 * 512 * llama8b.body_params_active / (0.5 * 330.3e12))
    current = prefill_time(_scenario(llama8b, rtx4090, weights=FP16, published=NEW).step_config(), 512.0, EFF)
    assert current.term("prefill_gemm").seconds == pytest.approx(  # type: ignore[union-attr]
        2 * 512 * llama8b.body_params_active / (0.5 * 165.2e12))


def test_every_fp16_accumulate_rate_cites_stored_sources_holding_its_numbers() -> None:
    sources = bundled_ledger_dir() / "sources"
    for rate in FP16_ACCUMULATE.values():
        text = "".join((sources / f"{s}.md").read_text(encoding="utf-8") for s in rate.sources)
        numbers = [w.strip(",:();") for w in rate.derivation.replace("(", " ").split() if any(c.isdigit() for c in w)]
        for number in numbers:
            digits = "".join(c for c in number if c.isdigit() or c == ".").rstrip(".")
            if digits and digits not in ("2", "4090", "4080"):
                assert digits in text, (rate.sources, digits)
