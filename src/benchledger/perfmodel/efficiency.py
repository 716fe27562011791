"""The efficiency of each result against its arm's physical ceiling: computed here, once, for everyone.

The audit (``physics.above-ceiling``), the index (``t_efficiency``, the ``efficiency`` view) and the site read
these objects; none of them recomputes a ceiling or a percentage. Per arm: the roofline ceiling of its
hardware × count × weight format × model at its load (``ceiling.arm_ceiling``) or the reason it cannot be
computed, and for each ``output_throughput``, ``per_stream_throughput`` and ``tpot`` result its efficiency
(100 % = the physical limit; ``ceiling.result_efficiency``). Reference lookups are shared across arms
(``CeilingInputs``), so the cost per arm is a few multiplications.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchledger.perfmodel.ceiling import (
    CHECKED_METRICS,
    Ceiling,
    CeilingInputs,
    arm_ceiling,
    result_efficiency,
)
from benchledger.schema import Benchmark

BASIS = "roofline ceiling, η = 1 (benchledger.perfmodel.ceiling)"


@dataclass(frozen=True)
class ResultEfficiency:
    """One result against its ceiling: ``percent_of_bound`` is 100 at the physical limit.

    ``efficiency_pct`` is that percentage when it is an efficiency, None when the bound only caps the value
    (``not_applicable`` says why: an aggregate bound from compute alone because concurrency is unknown).
    """

    index: int
    """Position of the result in the arm's ``results``."""
    metric: str
    stat: str
    value: float
    unit: str
    ceiling: float
    ceiling_unit: str
    percent_of_bound: float
    bound: str
    """The ceiling's name (``ceiling.bound_name``)."""
    not_applicable: str = ""

    @property
    def efficiency_pct(self) -> float | None:
        return None if self.not_applicable else self.percent_of_bound


@dataclass(frozen=True)
class ArmEfficiency:
    """One arm: its ceiling (or why there is none) and the efficiency of each checkable result."""

    record_id: str
    arm: str
    checkable: bool
    """Whether the arm reports any metric a ceiling bounds (throughput or TPOT)."""
    ceiling: Ceiling | None
    reason: str
    """Why there is no ceiling ('' when there is one)."""
    results: tuple[ResultEfficiency, ...] = ()

    @property
    def basis(self) -> str:
        """How the ceiling was computed, with what was unknown."""
        notes = self.ceiling.notes if self.ceiling is not None else ()
        return "; ".join((BASIS, *notes))


def record_efficiency(record: Benchmark, inputs: CeilingInputs) -> list[ArmEfficiency]:
    """Every arm of one benchmark record, in record order (``inputs`` carries the ledger's reference data)."""
    out: list[ArmEfficiency] = []
    for arm in record.arms:
        checkable = any(r.metric in CHECKED_METRICS for r in arm.results)
        ceiling = arm_ceiling(inputs.ledger, record, arm, inputs)
        if isinstance(ceiling, str):
            out.append(ArmEfficiency(record.id, arm.name, checkable, None, ceiling))
            continue
        rows: list[ResultEfficiency] = []
        for index, result in enumerate(arm.results):
            found = result_efficiency(ceiling, result) if result.metric in CHECKED_METRICS else None
            if found is None:
                continue
            pct, bound = found
            rows.append(ResultEfficiency(index, result.metric, result.stat, float(result.value), result.unit, bound,
                                         "ms" if result.metric == "tpot" else "tok/s", pct,
                                         ceiling.bound_name(result.metric), ceiling.not_applicable(result.metric)))
        out.append(ArmEfficiency(record.id, arm.name, checkable, ceiling, "", tuple(rows)))
    return out


__all__ = ["BASIS", "ArmEfficiency", "ResultEfficiency", "record_efficiency"]
