"""The measured arms nearest to a configuration: what the ledger says next to what the model predicts.

An arm qualifies when it ran the same model on the same accelerator; it ranks by how many of the configuration's
choices it shares (device count, weight format, speculative method and k — spec on/off must match), then by
context distance (|log ratio|), then by concurrency distance. Its decode result (``calibrate.measured``) is
reported in its own metric so the caller can set it against the prediction in that metric.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from benchledger.ledger.store import Ledger
from benchledger.perfmodel.calibrate import measured
from benchledger.perfmodel.inputs import arm_concurrency, arm_context, number, text
from benchledger.schema import Benchmark, effective_subject

MAX_NEAREST = 3


@dataclass(frozen=True)
class NearArm:
    """One measured arm near a configuration."""

    ref: str
    conditions: str
    metric: str
    value: float
    unit: str
    concurrency: int | None
    distance: tuple[float, ...]


def _g(value: float | None) -> str:
    return "?" if value is None else f"{value:g}"


def nearest_arms(ledger: Ledger, *, model: str, accelerator: str, devices: int, weights: str,
                 spec: tuple[str, int] | None, context: float, concurrency: int,
                 limit: int = MAX_NEAREST) -> list[NearArm]:
    """Up to ``limit`` measured arms nearest to this configuration (see the module docstring)."""
    found: list[NearArm] = []
    for record in ledger.typed("benchmark", Benchmark):
        for arm in record.arms:
            subject = effective_subject(record, arm)
            if subject.model != model or subject.accelerator != accelerator:
                continue
            arm_spec = arm.speculative
            if (arm_spec is None) != (spec is None):
                continue
            result = measured(arm)
            if result is None:
                continue
            k = number(arm_spec.k) if arm_spec is not None else None
            misses = sum((number(subject.accelerator_count) != devices, text(subject.weights) != weights,
                          spec is not None and arm_spec is not None and (arm_spec.method, k) != spec))
            ctx = arm_context(record, arm)
            conc = arm_concurrency(record, arm)
            d_ctx = abs(math.log(ctx / context)) if ctx and context else 10.0
            d_conc = abs(math.log(conc / concurrency)) if conc else 10.0
            parts = [f"{_g(number(subject.accelerator_count))}× {text(subject.weights) or '?'}",
                     f"context {_g(ctx)}", f"concurrency {conc or '?'}"]
            if arm_spec is not None:
                parts.append(f"{arm_spec.method} k={_g(k)}")
            found.append(NearArm(f"{record.id}#{arm.name}", ", ".join(parts), result.metric, float(result.value),
                                 result.unit, conc, (float(misses), round(d_ctx, 2), round(d_conc, 2))))
    return sorted(found, key=lambda a: (a.distance, a.ref))[:limit]


__all__ = ["MAX_NEAREST", "NearArm", "nearest_arms"]
