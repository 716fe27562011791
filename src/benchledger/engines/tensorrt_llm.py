"""TensorRT-LLM's ``trtllm-serve``: its ``/metrics`` answers iteration statistics as JSON, not Prometheus text,
so no counter window (the run says so in a note); version at ``/version``."""

from __future__ import annotations

from benchledger.engines.profile import EngineProfile, VersionSource

PROFILE = EngineProfile(
    name="tensorrt-llm",
    ledger_ids=("tensorrt-llm",),
    version_sources=(VersionSource("/version", "version"),),
    notes=("/metrics is JSON iteration stats: no windowed acceptance",),
)
