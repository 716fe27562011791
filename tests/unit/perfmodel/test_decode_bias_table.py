"""benchmarks/decode_bias.py: llama.cpp decode arms grouped by part and weight kind (MMVQ block-quant vs 16-bit)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from benchledger.ledger import load_record
from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.schema import Benchmark

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "decode_bias.py"
RECORD = "xiongjiedai-llama-3-8b-4090-24gb-x1-688e8de8"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("decode_bias", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["decode_bias"] = module
    spec.loader.exec_module(module)
    return module


def _row(arm: str, hardware: str, measured: float, predicted: float, engine: str = "llama-cpp") -> dict:
    return {"arm": arm, "hardware": hardware, "family": "nvidia discrete", "engine": engine,
            "measured_tok_s": measured, "predicted_tok_s": predicted}


def test_weight_kinds_split_mmvq_formats_from_16_bit() -> None:
    script = _script()
    assert script.weight_kind("q4-k-m") == "block-quant"
    assert script.weight_kind("q8-0") == "block-quant"
    assert script.weight_kind("fp16") == "16-bit"
    assert script.weight_kind("bf16") == "16-bit"
    assert script.weight_kind("fp8") is None


def test_the_arm_weights_come_from_the_record() -> None:
    record = load_record(bundled_ledger_dir() / "benchmarks" / f"{RECORD}.md")
    assert isinstance(record, Benchmark)
    formats = {"q4-k-m-tg1024": "q4-k-m", "fp16-tg1024": "fp16"}

    class OneRecord:
        def get(self, record_id: str) -> Benchmark:
            assert record_id == RECORD
            return record

    script = _script()
    for arm, want in formats.items():
        assert script.arm_weights(OneRecord(), f"{RECORD}#{arm}") == want


def test_medians_per_part_and_kind_and_their_ratio() -> None:
    script = _script()
    weights = {"a#q1": "q4-k-m", "a#q2": "q8-0", "a#q3": "q4-k-m", "a#f1": "fp16", "b#q1": "q4-k-m",
               "c#q1": "q4-k-m"}
    rows = [_row("a#q1", "hbm", 50.0, 100.0), _row("a#q2", "hbm", 60.0, 100.0), _row("a#q3", "hbm", 70.0, 100.0),
            _row("a#f1", "hbm", 40.0, 50.0), _row("b#q1", "gddr", 120.0, 100.0),
            _row("c#q1", "gddr", 1.0, 100.0, engine="vllm")]
    table = script.bias_table(rows, weights.get, {"hbm": 2000.0, "gddr": 1000.0}.get)
    assert [e["hardware"] for e in table] == ["hbm", "gddr"]  # by bandwidth, highest first; vLLM's arm left out
    hbm, gddr = table
    assert hbm["block-quant"] == (3, 0.6) and hbm["16-bit"] == (1, 0.8)
    assert abs(hbm["ratio"] - 0.6 / 0.8) < 1e-12
    assert gddr["block-quant"] == (1, 1.2) and gddr["16-bit"] == (0, None) and gddr["ratio"] is None
    assert "| hbm | 2000 | 0.60 (3) | 0.80 (1) | 0.75 |" in script.render(table)
