"""SGLang: acceptance only as last-interval gauges (``sglang:spec_accept_length`` / ``..._rate``) — not
windowable, so reported, never differenced; version in ``/get_server_info``."""

from __future__ import annotations

from benchledger.engines.profile import EngineProfile, VersionSource

PROFILE = EngineProfile(
    name="sglang",
    ledger_ids=("sglang",),
    acceptance_gauges=("sglang:spec_accept_length", "sglang:spec_accept_rate"),
    version_sources=(VersionSource("/get_server_info", "version"),),
)
