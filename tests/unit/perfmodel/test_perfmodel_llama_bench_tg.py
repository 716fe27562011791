"""A llama-bench tg N result decodes from an empty KV cache: its mean decode KV length is N/2 (hand-computed)."""

from __future__ import annotations

from benchledger.ledger import load_record
from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.perfmodel.inputs import arm_context, llama_bench_tg
from benchledger.schema import Arm, Benchmark

RECORD = "xiongjiedai-llama-3-8b-4090-24gb-x1-688e8de8"


def _record() -> Benchmark:
    record = load_record(bundled_ledger_dir() / "benchmarks" / f"{RECORD}.md")
    assert isinstance(record, Benchmark)
    return record


def _arm(record: Benchmark, name: str) -> Arm:
    return next(a for a in record.arms if a.name == name)


def test_a_tg_arm_without_a_prompt_length_decodes_from_depth_zero() -> None:
    record = _record()
    tg8192, tg1024 = _arm(record, "q4-k-m-tg8192"), _arm(record, "q4-k-m-tg1024")
    assert llama_bench_tg(record, tg8192)
    assert arm_context(record, tg8192) == 4096.0  # tokens 0..8191 decoded from an empty cache: mean KV 8192/2
    assert arm_context(record, tg1024) == 512.0


def test_a_pp_arm_and_a_stated_depth_keep_the_recorded_lengths() -> None:
    record = _record()
    pp = _arm(record, "q4-k-m-pp1024")
    assert not llama_bench_tg(record, pp)
    assert arm_context(record, pp) == 1024.0  # a prompt of 1024, no output: the prompt alone
    deep = record.model_copy(update={"subject": record.subject.model_copy(update={"engine_flags": "-d 4096 -n 128"})})
    tg = _arm(deep, "q4-k-m-tg8192")
    assert not llama_bench_tg(deep, tg)  # the depth flag is stated but not read: the length stays unknown
    assert arm_context(deep, tg) is None
