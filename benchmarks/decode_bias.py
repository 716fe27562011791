"""The llama.cpp decode bias by part and weight format, from a ``model_accuracy.py --json`` run.

For each NVIDIA discrete part, the median measured / predicted decode tok/s of its llama.cpp arms, split by weight
family: GGUF block-quant weights (``kernels.is_block_quant``: llama.cpp multiplies them with its dp4a matrix-vector
kernel, MMVQ) and 16-bit weights (no MMVQ: ``use_mul_mat_vec_q = ggml_is_quantized(src0->type)``, source
llama-cpp-ggml-cuda-cu-dc685be). A term charged only to MMVQ's integer work moves the first column, never the
second, so where both columns sit below 1 by the same share the bias is not in that kernel's ALU work
(``benchmarks/model_accuracy_notes.md``, section decode-bias).

    python benchmarks/model_accuracy.py --json > accuracy.json
    python benchmarks/decode_bias.py accuracy.json            # markdown table
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any

from benchledger.ledger import Ledger
from benchledger.perfmodel.kernels import is_block_quant
from benchledger.schema import Accelerator, Benchmark, Quantity
from benchledger.schema.arms import effective_subject
from benchledger.schema.provenance import Known

WEIGHT_KINDS = ("block-quant", "16-bit")


def weight_kind(format_id: str) -> str | None:
    """'block-quant' (MMVQ), '16-bit' (fp16 / bf16: no MMVQ), None for anything else."""
    if is_block_quant(format_id):
        return "block-quant"
    return "16-bit" if format_id.split("-")[0] in ("fp16", "bf16", "f16") else None


def arm_weights(ledger: Ledger, ref: str) -> str | None:
    """The weight format id of ``record#arm`` (None when the record or the arm does not state one)."""
    record_id, _, arm_name = ref.partition("#")
    record = ledger.get(record_id)
    if not isinstance(record, Benchmark):
        return None
    arm = next((a for a in record.arms if a.name == arm_name), None)
    if arm is None:
        return None
    weights = effective_subject(record, arm).weights
    return str(weights.value) if isinstance(weights, Known) else None


def part_bandwidth(ledger: Ledger, hardware_id: str) -> float | None:
    """Peak memory bandwidth of an accelerator record, GB/s (None when unknown)."""
    acc = ledger.get(hardware_id)
    bw = acc.memory_bandwidth_gbs if isinstance(acc, Accelerator) else None
    return float(bw.value) if isinstance(bw, Quantity) else None


def bias_table(rows: list[dict[str, Any]], weights_of: Callable[[str], str | None],
               bandwidth_of: Callable[[str], float | None]) -> list[dict[str, Any]]:
    """Per NVIDIA discrete part with llama.cpp decode arms (``rows`` as ``model_accuracy --json`` prints them):
    bandwidth, and per weight kind the arm count and the median measured / predicted; ``ratio`` is block-quant
    over 16-bit where the part has both. ``weights_of`` maps ``record#arm`` to its weight format id."""
    ratios: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if row["engine"] != "llama-cpp" or row["family"] != "nvidia discrete" or row["predicted_tok_s"] <= 0:
            continue
        kind = weight_kind(weights_of(row["arm"]) or "")
        if kind is not None:
            ratios[row["hardware"]][kind].append(row["measured_tok_s"] / row["predicted_tok_s"])
    table = []
    for hw, kinds in ratios.items():
        entry: dict[str, Any] = {"hardware": hw, "bandwidth_gbs": bandwidth_of(hw)}
        for kind in WEIGHT_KINDS:
            entry[kind] = (len(kinds[kind]), median(kinds[kind])) if kinds[kind] else (0, None)
        q, f = entry["block-quant"][1], entry["16-bit"][1]
        entry["ratio"] = q / f if q is not None and f is not None else None
        table.append(entry)
    return sorted(table, key=lambda e: (-(e["bandwidth_gbs"] or 0.0), e["hardware"]))


def render(table: list[dict[str, Any]]) -> str:
    def cell(pair: tuple[int, float | None]) -> str:
        return "–" if pair[1] is None else f"{pair[1]:.2f} ({pair[0]})"

    lines = ["| part | peak GB/s | measured / predicted, block-quant (arms) | measured / predicted, 16-bit (arms) "
             "| block-quant / 16-bit |", "|---|---|---|---|---|"]
    for e in table:
        ratio = "–" if e["ratio"] is None else f"{e['ratio']:.2f}"
        bw = "?" if e["bandwidth_gbs"] is None else f"{e['bandwidth_gbs']:g}"
        lines.append(f"| {e['hardware']} | {bw} | {cell(e['block-quant'])} | {cell(e['16-bit'])} | {ratio} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("accuracy_json", type=Path, help="output of benchmarks/model_accuracy.py --json")
    parser.add_argument("--ledger", default=None)
    args = parser.parse_args()
    result = json.loads(args.accuracy_json.read_text(encoding="utf-8"))
    ledger = Ledger.load(args.ledger)
    table = bias_table(result["rows"], lambda ref: arm_weights(ledger, ref), lambda hw: part_bandwidth(ledger, hw))
    print(render(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
