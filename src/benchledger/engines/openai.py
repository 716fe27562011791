"""Any other OpenAI-compatible server: nothing assumed beyond ``/v1/completions``, ``/v1/chat/completions`` and
``/health``; the harness tries every known family, field and endpoint (``engines.known_*``)."""

from __future__ import annotations

from benchledger.engines.profile import EngineProfile

PROFILE = EngineProfile(name="openai-compatible", ledger_ids=())
