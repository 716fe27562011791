"""Pitfall checks of one arm's results → human-readable warnings stored in its ``summary.json``.

Each warning names what it guards: chunk coalescing with speculation off (by the server,
from token counts; by the client, from identical arrival stamps), acceptance
measured under ``ignore_eos`` or random-token prompts, unpinned temperature, counters moved by foreign traffic,
requests with ≤ 1 output token (left out of TPOT), and the consistency between observed tokens per chunk and
the mean acceptance length the counters imply.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

COALESCE_TOLERANCE = 1.05
CLIENT_COALESCE_SHARE = 0.05
FOREIGN_TOLERANCE = 0.02


def arm_warnings(
    *,
    speculative: bool,
    summary: Mapping[str, Any],
    records: Sequence[Mapping[str, Any]],
    counters: Mapping[str, Any] | None,
    generated_delta: float | None,
    window_output_tokens: int,
    temperature: float | None,
    ignore_eos: bool,
    synthetic_prompts: bool,
) -> list[str]:
    """All warnings for one arm at one load point."""
    out: list[str] = []
    tpc = summary.get("tokens_per_chunk")
    measured_chunks = any(r.get("chunk_token_source") == "continuous_usage" for r in records)
    if not speculative and isinstance(tpc, float) and math.isfinite(tpc) and tpc > COALESCE_TOLERANCE:
        if measured_chunks:
            read = "read itl_per_token (from per-chunk usage) and TPOT"
        else:
            read = ("read TPOT; itl_per_token is approximate here (no per-chunk usage: every chunk counted as one "
                    "token) and is no better than ITL per chunk")
        how = "usage deltas" if measured_chunks else "final usage vs chunk count"
        out.append(
            f"chunk coalescing: {tpc:.2f} tokens per chunk with speculation off ({how}); "
            f"ITL per chunk does not measure per-token latency here — {read}"
        )
    share = summary.get("client_coalesced_chunk_share")
    if isinstance(share, float) and share > CLIENT_COALESCE_SHARE:
        out.append(
            f"client-side coalescing: {share:.1%} of consecutive content chunks got identical client timestamps "
            "(read in one burst) — the client was the bottleneck, not the server: ITL, TPOT and TTFT include "
            "client delay; lower the concurrency or give the client more CPU"
        )
    if speculative and ignore_eos:
        out.append("acceptance measured with ignore_eos: decoding past EOS produces junk that drafts predict "
                   "unrealistically; do not quote this acceptance as representative")
    if speculative and synthetic_prompts:
        out.append("acceptance measured on synthetic prompts: real-text acceptance may differ")
    if temperature is None:
        out.append("temperature not pinned: the server default applies and arms may sample differently")
    excluded = int(summary.get("tpot_excluded_requests") or 0)
    if excluded:
        out.append(f"{excluded} completed request(s) had ≤ 1 output token and are left out of TPOT")
    if generated_delta is not None and window_output_tokens > 0:
        extra = generated_delta - window_output_tokens
        if extra > max(FOREIGN_TOLERANCE * window_output_tokens, 2):
            out.append(
                f"foreign traffic: the server generated {generated_delta:.0f} tokens in the window but this run "
                f"received {window_output_tokens}; counters (acceptance) may include other clients' requests"
            )
    if counters and counters.get("acceptance_length") and isinstance(tpc, float) and math.isfinite(tpc):
        length = float(counters["acceptance_length"])
        if tpc < 0.5 * length:
            out.append(
                f"consistency: {tpc:.2f} tokens per chunk observed vs mean acceptance length {length:.2f} from "
                "counters — the server streams per token, not per verify step, so chunk timing hides steps"
            )
        elif tpc > 1.5 * length:
            out.append(
                f"consistency: {tpc:.2f} tokens per chunk exceed the mean acceptance length {length:.2f} — "
                "chunks are coalesced beyond verify steps (stream interval / proxy buffering)"
            )
    return out


def not_windowable_note(gauges: Mapping[str, float]) -> str | None:
    """The note for SGLang-style acceptance gauges, which cannot be differenced over a window."""
    if not gauges:
        return None
    shown = ", ".join(f"{k}={v:g}" for k, v in sorted(gauges.items()))
    return f"acceptance gauges only ({shown}): last-interval values, not windowable — not used as this run's acceptance"


__all__ = ["arm_warnings", "not_windowable_note"]
