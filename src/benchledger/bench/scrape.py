"""Prometheus ``/metrics`` scrapes → normalised speculative-decoding counter snapshots.

Understood families (series are summed over labels other than ``position``, so data-parallel engines add up):

- vLLM: ``vllm:spec_decode_num_drafts_total``, ``..._num_draft_tokens_total``, ``..._num_accepted_tokens_total``,
  ``..._num_accepted_tokens_per_pos_total{position}``; generated tokens ``vllm:generation_tokens_total``.
- llama.cpp (new): the same names under ``llamacpp:``; generated tokens ``llamacpp:tokens_predicted_total``.
- llama.cpp (old): ``llamacpp:n_drafted_total`` / ``llamacpp:n_drafted_accepted_total`` (older still:
  ``n_draft_total`` / ``n_draft_accepted_total``) — no draft count, so no mean length.
- SGLang: gauges ``sglang:spec_accept_length`` / ``sglang:spec_accept_rate`` — last-interval values, **not
  windowable**; reported as such, never differenced.

GETs are retried on a fresh connection: a pooled keep-alive connection right after a stream is sometimes dropped.
"""

from __future__ import annotations

import time
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

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


def parse_samples(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Sample name → [(labels, value)] from Prometheus text exposition."""
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out.setdefault(sample.name, []).append((dict(sample.labels), float(sample.value)))
    return out


def _total(samples: dict[str, list[tuple[dict[str, str], float]]], name: str) -> float | None:
    series = samples.get(name)
    if series is None:
        return None
    return sum(v for _, v in series)


def snapshot(text: str) -> dict[str, Any]:
    """Normalised counters of one scrape: ``family``, ``drafts``, ``draft_tokens``, ``accepted``,
    ``per_position`` {pos: value}, ``generated_tokens``; SGLang gauges under ``gauges`` (not windowable)."""
    samples = parse_samples(text)
    snap: dict[str, Any] = {"family": None, "drafts": None, "draft_tokens": None, "accepted": None,
                            "per_position": {}, "generated_tokens": None, "gauges": {}}
    for family, names in FAMILIES.items():
        if names["draft_tokens"] not in samples:
            continue
        snap["family"] = family
        for key in ("drafts", "draft_tokens", "accepted", "generated_tokens"):
            if key in names:
                snap[key] = _total(samples, names[key])
        if "per_position" in names:
            per: dict[str, float] = {}
            for labels, value in samples.get(names["per_position"], []):
                pos = labels.get("position")
                if pos is not None:
                    per[pos] = per.get(pos, 0.0) + value
            snap["per_position"] = per
        break
    if snap["family"] is None:
        for family, names in FAMILIES.items():
            gen = _total(samples, names["generated_tokens"])
            if gen is not None:
                snap["family"] = family
                snap["generated_tokens"] = gen
                break
    for gauge in SGLANG_GAUGES:
        gauge_value = _total(samples, gauge)
        if gauge_value is not None:
            snap["gauges"][gauge] = gauge_value
            snap["family"] = snap["family"] or "sglang"
    return snap


def fetch_text(url: str, *, attempts: int = 3, timeout: float = 10.0, api_key: str | None = None) -> str:
    """GET ``url`` and return the body; each attempt on a fresh connection; raises the last error."""
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    last: Exception | None = None
    for attempt in range(attempts):
        try:
            with httpx.Client(timeout=timeout, headers=headers) as client:
                resp = client.get(url)
                resp.raise_for_status()
                return resp.text
        except httpx.HTTPError as exc:
            last = exc
            time.sleep(0.1 * (attempt + 1))
    assert last is not None
    raise last


__all__ = ["FAMILIES", "SGLANG_GAUGES", "fetch_text", "parse_samples", "snapshot"]
