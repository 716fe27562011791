"""Formats used as test inputs by the perfmodel tests (not ledger data)."""

from __future__ import annotations

from benchledger.perfmodel.formats import FormatSpec

BF16 = FormatSpec("bf16", 2.0)
FP8 = FormatSpec("fp8-e4m3", 1.0)
INT4 = FormatSpec("int4", 0.53)
NVFP4 = FormatSpec("nvfp4", 0.5625)
