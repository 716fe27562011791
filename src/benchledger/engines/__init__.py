"""Engine profiles: one module per engine (``vllm``, ``llamacpp``, ``sglang``, ``tensorrt_llm``, ``openai``), each
a ``PROFILE`` (``engines.profile.EngineProfile``). A leaf package any layer may import.

``profile_for(ledger_engine_id)`` picks a profile (the generic one for an unknown or missing id);
``known_*`` give what the harness tries against a server whose engine it does not know, in a fixed order.
"""

from __future__ import annotations

from benchledger.engines import llamacpp, openai, sglang, tensorrt_llm, vllm
from benchledger.engines.profile import (
    CounterFamily,
    EngineProfile,
    ResponseFields,
    TokenizeShape,
    VersionSource,
)

PROFILES: tuple[EngineProfile, ...] = (vllm.PROFILE, llamacpp.PROFILE, sglang.PROFILE, tensorrt_llm.PROFILE,
                                       openai.PROFILE)
GENERIC = openai.PROFILE


def profile_for(engine_id: str | None) -> EngineProfile:
    """The profile serving ledger engine id ``engine_id``; the generic OpenAI-compatible one otherwise."""
    for profile in PROFILES:
        if engine_id is not None and engine_id in profile.ledger_ids:
            return profile
    return GENERIC


def known_counter_families() -> list[CounterFamily]:
    """Every counter family, in the order a scrape is matched against them."""
    return [family for p in PROFILES for family in p.counter_families]


def known_acceptance_gauges() -> list[str]:
    return [gauge for p in PROFILES for gauge in p.acceptance_gauges]


def known_response_fields() -> list[ResponseFields]:
    return [p.response_fields for p in PROFILES if p.response_fields is not None]


def known_version_sources() -> list[VersionSource]:
    """Version endpoints, each once, in profile order."""
    out: list[VersionSource] = []
    for p in PROFILES:
        out += [v for v in p.version_sources if v not in out]
    return out


def known_tokenize_shapes() -> list[TokenizeShape]:
    """Tokenize request shapes, llama.cpp's first: given vLLM's body (no ``content``) llama.cpp may tokenize an
    empty text, and its answer then never grows."""
    shapes = {p.tokenize_shape for p in PROFILES if p.tokenize_shape is not None}
    return sorted(shapes, key=lambda s: (s != "llamacpp", s))


__all__ = [
    "GENERIC",
    "PROFILES",
    "CounterFamily",
    "EngineProfile",
    "ResponseFields",
    "VersionSource",
    "known_acceptance_gauges",
    "known_counter_families",
    "known_response_fields",
    "known_tokenize_shapes",
    "known_version_sources",
    "profile_for",
]
