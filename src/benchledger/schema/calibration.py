"""Calibration records: physics-model parameters fitted per (hardware, engine) from benchmark records.

Every parameter is a ``derived`` Quantity whose ``formula`` names the fitting code and whose ``inputs`` list
the benchmark records (and arms) it was fitted on.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from benchledger.schema.common import RecordBase
from benchledger.schema.provenance import SLUG_PATTERN, Quantity


class Calibration(RecordBase):
    """Fitted efficiency parameters for one (hardware, engine)."""

    kind: Literal["calibration"]
    accelerator: str = Field(pattern=SLUG_PATTERN)
    engine: str = Field(pattern=SLUG_PATTERN)
    parameters: dict[str, Quantity] = Field(description="e.g. eta_m, eta_c, t0_ms, phi — all derived.")
    fitted_from: list[str] = Field(min_length=1, description="Benchmark record ids (record#arm) used.")
    residual_pct: Quantity | None = None


__all__ = ["Calibration"]
