"""The one mapping from a benchledger ``summary.json`` to ledger results and acceptance.

Used by ``benchledger bench --record`` (``bench/record.py``) and by ``benchledger import benchledger-run``
(``importers/vllm_bench.py``), so one run gives the same results either way; only where the evidence lives
(``run`` / ``sha256``) differs — the arm folder with ``requests.jsonl`` for a recorded run, the stored
``summary.json`` for an import. benchledger's own definitions apply, so ``definition`` is left unset.
Non-finite and missing values are skipped, never written.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from benchledger.schema import Acceptance, PairedSpeedup, Quantity, Result

MakeResult = Callable[[str, str, Any, str], Result]
"""(metric, stat, value, unit) → a Result carrying the caller's provenance."""
MakeQuantity = Callable[[float, str], Quantity]
"""(value, unit) → a Quantity carrying the caller's provenance."""

SIMPLE_KEYS: tuple[tuple[str, str, str], ...] = (
    # summary key, metric, unit (stat "value")
    ("output_throughput", "output_throughput", "tok/s"),
    ("total_token_throughput", "total_throughput", "tok/s"),
    ("request_throughput", "request_throughput", "req/s"),
    ("completed", "completed_requests", "requests"),
    ("failed", "failed_requests", "requests"),
)
LATENCY_KEYS: tuple[tuple[str, str], ...] = (
    # summary key infix, metric
    ("ttft", "ttft"),
    ("tpot", "tpot"),
    ("itl", "itl"),
    ("itl_per_token", "itl_per_token"),
    ("e2el", "e2e_latency"),
)
LATENCY_STATS = ("mean", "median", "std", "p90", "p99")


def finite(value: Any) -> bool:
    """A real, finite number (not a bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def result_keys(schema_version: int = 2) -> list[tuple[str, str, str, str]]:
    """Every (summary key, metric, stat, unit) that becomes a result, for a summary of ``schema_version``.

    The ledger's ``tpot`` is benchledger's decode interval: ``*_tpot_after_first_chunk_ms`` from version 2 on
    (where ``*_tpot_ms`` is vLLM's TPOT), ``*_tpot_ms`` in version 1 summaries.
    """
    keys = [(key, metric, "value", unit) for key, metric, unit in SIMPLE_KEYS]
    for infix, metric in LATENCY_KEYS:
        if infix == "tpot" and schema_version >= 2:
            infix = "tpot_after_first_chunk"
        keys += [(f"{stat}_{infix}_ms", metric, stat, "ms") for stat in LATENCY_STATS]
    return keys


def summary_results(summary: Mapping[str, Any], make: MakeResult) -> list[Result]:
    """The ledger results of one arm's summary; none for an arm that completed no request (its rates are 0 over
    nothing measured, and the schema refuses a zero throughput)."""
    if not summary.get("completed"):
        return []
    version = summary.get("schema_version")
    keys = result_keys(version if isinstance(version, int) else 1)
    return [make(metric, stat, summary[key], unit) for key, metric, stat, unit in keys if finite(summary.get(key))]


def summary_acceptance(summary: Mapping[str, Any], make: MakeQuantity) -> Acceptance | None:
    """Windowed counter acceptance of a speculative arm, or None (no counters, or a reset window)."""
    if summary.get("spec_decode_counter_window") == "reset":
        return None
    rate_value: Any = summary.get("spec_decode_acceptance_rate")
    if not finite(rate_value):
        return None
    length: Any = summary.get("spec_decode_acceptance_length")
    per_pos = [make(float(v), "fraction") for v in summary.get("spec_decode_per_position_acceptance_rates") or []
               if finite(v)]
    family = summary.get("spec_decode_counter_family") or "engine"
    return Acceptance(
        rate=make(float(rate_value), "fraction"),
        mean_length=make(float(length), "tokens") if finite(length) else None,
        per_position=per_pos,
        definition=f"{family}-counters-windowed: rate = Δaccepted/Δdraft_tokens, mean length = "
        "1 + Δaccepted/Δdrafts (bonus token included), per-position = Δaccepted_pos/Δdrafts",
        window="measured rounds after warmup (metrics-before.prom → metrics-after.prom in the run folder)",
    )


PAIRED_KEYS: tuple[tuple[str, str], ...] = (("output_throughput_speedup", "output_throughput"),
                                           ("tpot_speedup", "tpot"))
"""``comparison.json`` key of an arm (``bench/compare.py``) → the metric of its ``PairedSpeedup``."""


def comparison_speedups(comparison: Mapping[str, Any]) -> list[PairedSpeedup]:
    """The paired-rounds speedups (with 95 % CI) of one arm's entry in ``comparison.json``; none without an
    estimate (fewer than one paired round, or a failed comparison)."""
    out = []
    for key, metric in PAIRED_KEYS:
        entry = comparison.get(key)
        if not isinstance(entry, Mapping) or not finite(entry.get("estimate")) or entry["estimate"] <= 0:
            continue
        ci = entry.get("ci95")
        out.append(PairedSpeedup(metric=metric, estimate=float(entry["estimate"]),
                                 ci95=[float(v) for v in ci] if ci else None,
                                 paired_rounds=int(comparison.get("paired_rounds") or 0),
                                 method=str(comparison.get("method") or "paired rounds")))
    return out


__all__ = ["LATENCY_KEYS", "PAIRED_KEYS", "SIMPLE_KEYS", "MakeQuantity", "MakeResult", "comparison_speedups", "finite", "result_keys", "summary_acceptance", "summary_results"]
