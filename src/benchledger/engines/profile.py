"""What benchledger knows about one engine's serving surface, as data (see the per-engine modules).

A profile names the engine's Prometheus counter families for speculative decoding (differenced over a window)
and its acceptance gauges (not windowable), the per-response fields that carry acceptance, where its version
and health are served, the request shape of its ``/tokenize``, whether it writes one recurrent-state snapshot
per verified position, whether its draft head re-runs over each verified batch, and how it cuts a prompt into
micro-batches (physics-model inputs). This package imports nothing from benchledger.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Literal

TokenizeShape = Literal["llamacpp", "vllm"]


@dataclass(frozen=True)
class CounterFamily:
    """Prometheus counter names of one exposition family (series summed over labels but ``position``)."""

    name: str
    draft_tokens: str
    accepted: str
    generated_tokens: str
    drafts: str | None = None
    per_position: str | None = None


@dataclass(frozen=True)
class ResponseFields:
    """Where one streamed response carries its own acceptance counts: ``obj[container][nested?][field]``."""

    kind: Literal["llamacpp-timings", "vllm-per-request"]
    container: str
    draft_tokens: str
    accepted_tokens: str
    drafts: str | None = None
    nested: str | None = None


@dataclass(frozen=True)
class VersionSource:
    """A GET endpoint whose JSON answer names the engine version under ``key``."""

    path: str
    key: str

    @property
    def label(self) -> str:
        return self.path if self.key == "version" else f"{self.path} {self.key}"


@dataclass(frozen=True)
class EngineProfile:
    """One engine's serving surface (see the module doc)."""

    name: str
    ledger_ids: tuple[str, ...]
    """Ledger engine ids served by this profile (forks that keep the surface included)."""
    counter_families: tuple[CounterFamily, ...] = ()
    acceptance_gauges: tuple[str, ...] = ()
    response_fields: ResponseFields | None = None
    version_sources: tuple[VersionSource, ...] = ()
    health_path: str = "/health"
    tokenize_shape: TokenizeShape | None = None
    recurrent_state_snapshots_per_position: bool = False
    draft_head_catch_up: bool = False
    prompt_batch: int = 0
    """Prompt tokens per forward call (llama.cpp's ``n_batch``); 0: the whole prompt in one forward."""
    prompt_ubatch: int = 0
    """Rows per micro-batch within a forward call (llama.cpp's ``n_ubatch``): over a layer split, the micro-batches
    of one call flow through the stages one behind the other (pipeline parallelism); 0: no micro-batches."""
    dequant_gemm_rows: int = 0
    """Builds up to ``dequant_gemm_until`` multiply block-quant weights by more than this many rows on an NVIDIA
    GPU of compute capability 7.0 or later by dequantizing them to fp16 and running a 16-bit cuBLAS GEMM, not
    their quantized kernel (0: never)."""
    dequant_gemm_until: dt.date | None = None
    """The date of the change that retired that path (builds measured before it took it)."""
    score_bytes: float = 0.0
    """Bytes written and read per attention score by the engine's attention without flash attention, which
    materializes the scores (0: not known)."""
    unfused_attention_until: dt.date | None = None
    """Builds measured before this date ran without flash attention by default (hence ``score_bytes``)."""
    """True: after each target forward the engine runs the draft head (MTP / EAGLE) once more over that batch's
    rows to fill the head's own KV cache, a forward separate from the k draft forwards."""
    notes: tuple[str, ...] = field(default_factory=tuple)


__all__ = ["CounterFamily", "EngineProfile", "ResponseFields", "TokenizeShape", "VersionSource"]
