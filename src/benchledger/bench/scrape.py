"""Prometheus ``/metrics`` scrapes → normalised speculative-decoding counter snapshots.

Understood families (series are summed over labels other than ``position``, so data-parallel engines add up):

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

FAMILIES: dict[str, dict[str, str]] = {
    "vllm": {
        "drafts": "vllm:spec_decode_num_drafts_total",
        "draft_tokens": "vllm:spec_decode_num_draft_tokens_total",
        "accepted": "vllm:spec_decode_num_accepted_tokens_total",
        "per_position": "vllm:spec_decode_num_accepted_tokens_per_pos_total",
        "generated_tokens": "vllm:generation_tokens_total",
    },
    "llamacpp": {
        "drafts": "llamacpp:spec_decode_num_drafts_total",
        "draft_tokens": "llamacpp:spec_decode_num_draft_tokens_total",
        "accepted": "llamacpp:spec_decode_num_accepted_tokens_total",
        "per_position": "llamacpp:spec_decode_num_accepted_tokens_per_pos_total",
        "generated_tokens": "llamacpp:tokens_predicted_total",
    },
    "llamacpp-old": {
        "draft_tokens": "llamacpp:n_drafted_total",
        "accepted": "llamacpp:n_drafted_accepted_total",
        "generated_tokens": "llamacpp:tokens_predicted_total",
    },
    "llamacpp-older": {
        "draft_tokens": "llamacpp:n_draft_total",
        "accepted": "llamacpp:n_draft_accepted_total",
        "generated_tokens": "llamacpp:tokens_predicted_total",
    },
}
SGLANG_GAUGES = ("sglang:spec_accept_length", "sglang:spec_accept_rate")
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
    for family, names in FAMILIES.items():
        if names["draft_tokens"] not in samples:
            continue
        snap.family = family
        snap.drafts = _total(samples, names["drafts"]) if "drafts" in names else None
        snap.draft_tokens = _total(samples, names["draft_tokens"])
        snap.accepted = _total(samples, names["accepted"])
        snap.generated_tokens = _total(samples, names["generated_tokens"])
        if "per_position" in names:
            per: dict[str, float] = {}
            for labels, value in samples.get(names["per_position"], []):
                pos = labels.get("position")
                if pos is not None:
                    per[pos] = per.get(pos, 0.0) + value
            snap.per_position = per
        break
    if snap.family is None:
        for family, names in FAMILIES.items():
            gen = _total(samples, names["generated_tokens"])
            if gen is not None:
                snap.family = family
                snap.generated_tokens = gen
                break
    for gauge in SGLANG_GAUGES:
        gauge_value = _total(samples, gauge)
        if gauge_value is not None:
            snap.gauges[gauge] = gauge_value
            snap.family = snap.family or "sglang"
    return snap


__all__ = ["FAMILIES", "PROCESS_START", "SGLANG_GAUGES", "ScrapeError", "parse_samples", "snapshot"]
