"""Fit η_m, η_c, t0 and φ per (accelerator, engine) from the ledger's benchmark records.

Each usable arm (model, hardware count, weight format, concurrency, context and — for speculative arms — k and
acceptance known) gives one observation: its decode throughput (``output_throughput``, else
``per_stream_throughput``, else ``tpot``). The fit minimises the squared log error of the predictions plus a weak
pull toward the defaults (so a parameter the data cannot see stays at its default instead of drifting), by
Nelder–Mead in log space. Results are ``calibration`` records whose parameters are ``derived`` Quantities naming
this code and the ``record#arm`` observations they came from.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from benchledger.ledger.store import Ledger
from benchledger.perfmodel.fitting import nelder_mead
from benchledger.perfmodel.inputs import arm_scenario
from benchledger.perfmodel.predict import Params, Prediction, Scenario, predict
from benchledger.perfmodel.roofline import Efficiency
from benchledger.schema import Arm, Benchmark, Calibration, Quantity, Result

FORMULA = "benchledger.perfmodel.calibrate.fit"
METRIC_PRIORITY = ("output_throughput", "per_stream_throughput", "tpot")
PRIOR_WEIGHT = 1e-4
BOUNDS = {"eta_m": (0.05, 1.0), "eta_c": (0.005, 1.0), "t0": (0.0, 0.2), "phi": (1.0, 100.0)}


@dataclass(frozen=True)
class Observation:
    """One measured arm with the scenario it ran."""

    ref: str
    """``record#arm``."""
    scenario: Scenario
    metric: str
    value: float
    sources: tuple[str, ...]
    assumed: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, str]:
        return self.scenario.hardware.id, self.scenario.engine or "unknown"


def measured(arm: Arm) -> Result | None:
    """The arm's decode-speed result used for fitting (first metric in ``METRIC_PRIORITY``)."""
    for metric in METRIC_PRIORITY:
        for result in arm.results:
            if result.metric == metric and result.stat in ("value", "mean", "median", "p50") and result.value > 0:
                return result
    return None


def predicted(prediction: Prediction, metric: str) -> float:
    if metric == "output_throughput":
        return prediction.aggregate_tok_s
    if metric == "per_stream_throughput":
        return prediction.tok_s_per_stream
    return prediction.tpot_ms


def arm_sources(record: Benchmark, arm: Arm) -> tuple[str, ...]:
    """Source ids behind an arm's results (the record's first source when results name none)."""
    found = {r.source for r in arm.results if r.source}
    if not found and record.sources:
        found = {record.sources[0]}
    return tuple(sorted(found))


def observations(
    ledger: Ledger, *, unknown_context: float | None = None, records: Iterable[Benchmark] | None = None
) -> tuple[list[Observation], list[tuple[str, str]]]:
    """Usable observations and, for the rest, ``(record#arm, reason)``."""
    usable: list[Observation] = []
    skipped: list[tuple[str, str]] = []
    for record in records if records is not None else ledger.typed("benchmark", Benchmark):
        for arm in record.arms:
            ref = f"{record.id}#{arm.name}"
            result = measured(arm)
            if result is None:
                skipped.append((ref, "no decode throughput or TPOT result"))
                continue
            built = arm_scenario(ledger, record, arm, unknown_context=unknown_context)
            if built.scenario is None:
                skipped.append((ref, built.reason))
                continue
            value = float(result.value) * (1000.0 if result.metric == "tpot" and result.unit == "s" else 1.0)
            usable.append(Observation(ref, built.scenario, result.metric, value, arm_sources(record, arm),
                                      built.assumed))
    return usable, skipped


def _clamp(name: str, value: float) -> float:
    low, high = BOUNDS[name]
    return min(max(value, low), high)


def _decode(x: list[float]) -> Efficiency:
    return Efficiency(
        eta_m=_clamp("eta_m", math.exp(x[0])), eta_c=_clamp("eta_c", math.exp(x[1])),
        t0=_clamp("t0", math.exp(x[2]) - 1e-4), phi=_clamp("phi", math.exp(x[3])),
    )


def _encode(eff: Efficiency) -> list[float]:
    return [math.log(eff.eta_m), math.log(eff.eta_c), math.log(eff.t0 + 1e-4), math.log(eff.phi)]


def log_errors(obs: list[Observation], eff: Efficiency) -> list[float]:
    """``log(predicted / measured)`` for each observation."""
    params = Params(eff)
    return [math.log(predicted(predict(o.scenario, params), o.metric) / o.value) for o in obs]


@dataclass(frozen=True)
class Fit:
    """A fitted parameter set and how well it reproduces its own observations."""

    eff: Efficiency
    observations: list[Observation]
    median_abs_pct: float
    fitted: tuple[str, ...]


def fit(obs: list[Observation], start: Efficiency | None = None) -> Fit:
    """Least squares in log space (+ a weak pull to the defaults) over η_m, η_c, t0 and, with spec arms, φ."""
    if not obs:
        raise ValueError("no observations to fit")
    prior = start or Efficiency()
    x0 = _encode(prior)
    has_spec = any(o.scenario.spec is not None for o in obs)

    def loss(x: list[float]) -> float:
        if not has_spec:
            x = [*x[:3], x0[3]]
        errors = log_errors(obs, _decode(x))
        penalty = sum((a - b) ** 2 for a, b in zip(x, x0, strict=True))
        return sum(e * e for e in errors) / len(errors) + PRIOR_WEIGHT * penalty

    best, _ = nelder_mead(loss, x0, iterations=300 if has_spec else 200)
    for _ in range(2):  # restarts from the best point escape a collapsed simplex
        best, _ = nelder_mead(loss, best, step=0.15, iterations=200)
    if not has_spec:
        best = [*best[:3], x0[3]]
    eff = _decode(best)
    errors = [abs(math.exp(e) - 1.0) * 100.0 for e in log_errors(obs, eff)]
    fitted = ("eta_m", "eta_c", "t0_ms", "phi") if has_spec else ("eta_m", "eta_c", "t0_ms")
    return Fit(eff, obs, statistics.median(errors), fitted)


def calibration_id(accelerator: str, engine: str) -> str:
    return f"calibration-{accelerator}-{engine}"


def calibration_record(accelerator: str, engine: str, result: Fit, skipped: list[tuple[str, str]]) -> Calibration:
    """The ``calibration`` record of one fit: parameters as derived Quantities naming their observations."""
    refs = [o.ref for o in result.observations]
    assumed = sorted({a for o in result.observations for a in o.assumed})
    values = {"eta_m": (result.eff.eta_m, "fraction of peak bandwidth"),
              "eta_c": (result.eff.eta_c, "fraction of peak compute"),
              "t0_ms": (result.eff.t0 * 1e3, "ms"), "phi": (result.eff.phi, "factor")}
    params = {
        name: Quantity(value=round(v, 6), unit=unit, provenance="derived", formula=FORMULA, inputs=refs,
                       note="" if name in result.fitted else "not identifiable from these arms: default kept")
        for name, (v, unit) in values.items()
    }
    lines = [
        f"Fitted by `{FORMULA}` on {len(refs)} arm(s) for {accelerator} × {engine}.",
        "",
        f"Median absolute error on the fitted arms: {result.median_abs_pct:.1f} %.",
    ]
    if assumed:
        lines += ["", "Assumptions made for arms with unknown conditions:", *(f"- {a}" for a in assumed)]
    if skipped:
        lines += ["", f"{len(skipped)} arm(s) of this hardware and engine could not be used:",
                  *(f"- {ref}: {why}" for ref, why in skipped)]
    return Calibration(
        id=calibration_id(accelerator, engine), kind="calibration",
        title=f"Physics-model calibration for {accelerator} with {engine}",
        accelerator=accelerator, engine=engine, parameters=params, fitted_from=refs,
        residual_pct=Quantity(value=round(result.median_abs_pct, 3), unit="%", provenance="derived",
                              formula=FORMULA, inputs=refs, note="median absolute % error on the fitted arms"),
        body="\n".join(lines) + "\n",
    )


def calibrate_ledger(
    ledger: Ledger, *, accelerator: str | None = None, engine: str | None = None,
    unknown_context: float | None = None, exclude_sources: Iterable[str] = (),
) -> tuple[list[tuple[Calibration, Fit]], list[tuple[str, str]]]:
    """Fit every (accelerator, engine) group with data; returns the records (not written) and skipped arms."""
    excluded = set(exclude_sources)
    obs, skipped = observations(ledger, unknown_context=unknown_context)
    groups: dict[tuple[str, str], list[Observation]] = {}
    for o in obs:
        if excluded.intersection(o.sources):
            continue
        if (accelerator and o.key[0] != accelerator) or (engine and o.key[1] != engine):
            continue
        groups.setdefault(o.key, []).append(o)
    out = []
    for (acc, eng), group in sorted(groups.items()):
        result = fit(group)
        out.append((calibration_record(acc, eng, result, []), result))
    return out, skipped


__all__ = [
    "FORMULA",
    "Fit",
    "Observation",
    "calibrate_ledger",
    "calibration_id",
    "calibration_record",
    "fit",
    "log_errors",
    "measured",
    "observations",
]
