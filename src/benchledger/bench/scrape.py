"""Prometheus ``/metrics`` scrapes → normalised speculative-decoding counter snapshots.

The families and gauges come from the engine profiles (``benchledger.engines``); understood today (series are summed over labels other than ``position``, so data-parallel engines add up):

- vLLM: ``vllm:spec_decode_num_drafts_total``, ``..._num_draft_tokens_total``, ``..._num_accepted_tokens_total``,
  ``..._num_accepted_tokens_per_pos_total{position}``; generated tokens ``vllm:generation_tokens_total``.
- llama.cpp (new): the same names under ``llamacpp:``; generated tokens ``llamacpp:tokens_predicted_total``.
- llama.cpp (old): ``llamacpp:n_drafted_total`` / ``llamacpp:n_drafted_accepted_total`` (older still:
  ``n_draft_total`` / ``n_draft_accepted_total``) — no draft count, so no mean length.
- SGLang: gauges ``sglang:spec_accept_length`` / ``sglang:spec_accept_rate`` — last-interval values, **not
  windowable**; reported as such, never differenced.

A scrape whose text is not Prometheus exposition raises ``ScrapeError`` (the report turns it into a note).
Fetching is ``bench.auxhttp`` (total deadline per call, retried on a fresh connection).
"""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from benchledger.bench.rundata import CounterSnapshot
from benchledger.engines import known_acceptance_gauges, known_counter_families

FAMILIES = known_counter_families()
SGLANG_GAUGES = tuple(known_acceptance_gauges())
PROCESS_START = "process_start_time_seconds"


class ScrapeError(ValueError):
    """A ``/metrics`` body that is not Prometheus text exposition (the message says why, in one line)."""


def parse_samples(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Sample name → [(labels, value)] from Prometheus text exposition; ScrapeError for anything else."""
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    try:
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                out.setdefault(sample.name, []).append((dict(sample.labels), float(sample.value)))
    except Exception as exc:  # the parser raises ValueError, TypeError, IndexError … on foreign text
        raise ScrapeError(f"not Prometheus text exposition ({type(exc).__name__}: {str(exc)[:80]}): "
                          f"{text[:60]!r}") from None
    return out


def _total(samples: dict[str, list[tuple[dict[str, str], float]]], name: str) -> float | None:
    series = samples.get(name)
    if series is None:
        return None
    return sum(v for _, v in series)


def snapshot(text: str) -> CounterSnapshot:
    """Normalised counters of one scrape (``CounterSnapshot``); SGLang gauges under ``gauges`` (not
    windowable); ``process_start_time_seconds`` when exported. ScrapeError for a body that is not Prometheus."""
    samples = parse_samples(text)
    snap = CounterSnapshot(process_start_time=_total(samples, PROCESS_START))
    for fam in FAMILIES:
        if fam.draft_tokens not in samples:
            continue
        snap.family = fam.name
        snap.drafts = _total(samples, fam.drafts) if fam.drafts else None
        snap.draft_tokens = _total(samples, fam.draft_tokens)
        snap.accepted = _total(samples, fam.accepted)
        snap.generated_tokens = _total(samples, fam.generated_tokens)
        if fam.per_position:
            per: dict[str, float] = {}
            for labels, value in samples.get(fam.per_position, []):
                pos = labels.get("position")
                if pos is not None:
                    per[pos] = per.get(pos, 0.0) + value
            snap.per_position = per
        break
    if snap.family is None:
        for fam in FAMILIES:
            gen = _total(samples, fam.generated_tokens)
            if gen is not None:
                snap.family = fam.name
                snap.generated_tokens = gen
                break
    for gauge in SGLANG_GAUGES:
        gauge_value = _total(samples, gauge)
        if gauge_value is not None:
            snap.gauges[gauge] = gauge_value
            snap.family = snap.family or "sglang"
    return snap


__all__ = ["FAMILIES", "PROCESS_START", "SGLANG_GAUGES", "ScrapeError", "parse_samples", "snapshot"]
