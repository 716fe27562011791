"""Fit η_m, η_c, t0, t0_draft and φ per (accelerator, engine) from the ledger's benchmark records.

Each usable arm (model, hardware count, weight format, concurrency, context and — for speculative arms — k and
acceptance known) gives one observation: its decode speed — ``tpot`` (pure decode time per token, what the model
predicts), else ``per_stream_throughput``, else ``output_throughput`` (which in closed-loop runs also counts the
time spent in prefill). The fit minimises the squared log error of the predictions plus a weak
pull toward the defaults (so a parameter the data cannot see stays at its default instead of drifting), by
Nelder–Mead in log space. Results are ``calibration`` records whose parameters are ``derived`` Quantities naming
this code and the ``record#arm`` observations they came from.
"""

from __future__ import annotations

import datetime as dt
import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, replace

from benchledger.ledger.store import Ledger
from benchledger.perfmodel.calibrate_prefill import (
    PrefillObservation,
    first_central_result,
    fit_prefill,
    prefill_observations,
)
from benchledger.perfmodel.campaigns import campaign_of, campaigns
from benchledger.perfmodel.fitting import nelder_mead, soft_l1
from benchledger.perfmodel.inputs import AcceptanceLookup, arm_scenario, number
from benchledger.perfmodel.pooling import campaign_weights
from benchledger.perfmodel.predict import Params, Prediction, Scenario, predict
from benchledger.perfmodel.prefill import prefill_time
from benchledger.perfmodel.roofline import Efficiency
from benchledger.perfmodel.specdec import FREE_METHODS
from benchledger.schema import Arm, Benchmark, Calibration, HistoryEntry, Quantity, Result, effective_workload
from benchledger.schema.units import conversion

FORMULA = "benchledger.perfmodel.calibrate.fit"
METRIC_PRIORITY = ("tpot", "per_stream_throughput", "output_throughput")
PRIOR_WEIGHT = 1e-4
POOLED_PRIOR_WEIGHT = 1e-2
"""The pull toward the defaults of a fit that pools campaigns (``accuracy.HeldOutFits``): pooled arms disagree for
reasons the model lacks (a kernel, a build, a queue), and with the weak one-setup pull the optimiser parks knobs at
their bounds (η_m = 1, η_c = 0.02, t0_draft = 17 ms) to absorb them; moving a knob e-fold must pay ≈ 0.01 of loss."""
BOUNDS = {"eta_m": (0.05, 1.0), "eta_c": (0.02, 1.0), "t0": (0.0, 0.2), "phi_exp": (-1.0, 3.0), "t0_draft": (0.0, 0.05),
          "eta_attn": (0.02, 1.0), "t0_layer": (0.0, 0.005)}
DEFAULT_T0_LAYER = 40e-6
"""Prior centre of the per-layer step overhead (s): a decoder layer's handful of kernel launches and syncs."""


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
    prompt_tokens: float | None = None
    output_tokens: float | None = None
    """Prompt and output tokens per request, set when ``metric`` is ``output_throughput`` and both are known: the
    measured throughput then counts each request's prefill (``predicted_value``)."""
    baseline: str | None = None
    """``record#arm`` of the arm this (speculative) arm is compared with; a fit that holds both scores this arm by
    its speedup over that baseline (``log_errors``)."""

    @property
    def key(self) -> tuple[str, str]:
        return self.scenario.hardware.id, self.scenario.engine or "unknown"


def measured(arm: Arm) -> Result | None:
    """The arm's decode-speed result used for fitting (first metric in ``METRIC_PRIORITY``)."""
    return first_central_result(arm, METRIC_PRIORITY)


def predicted(prediction: Prediction, metric: str) -> float:
    if metric == "output_throughput":
        return prediction.aggregate_tok_s
    if metric == "per_stream_throughput":
        return prediction.tok_s_per_stream
    return prediction.tpot_ms


def predicted_value(o: Observation, prediction: Prediction, eff: Efficiency) -> float:
    """The model's value of ``o``'s metric. An output throughput over whole requests (prompt and output length
    known) counts their prefill: ``B`` sequences per replica yield ``B·n_out`` tokens per
    ``t_prefill(B prompts) + n_out·TPOT``, so it is the decode-only aggregate × decode / (prefill + decode)."""
    if o.metric != "output_throughput" or o.output_tokens is None or o.prompt_tokens is None:
        return predicted(prediction, o.metric)
    sc = o.scenario
    prefill = prefill_time(sc.step_config(), o.prompt_tokens, eff, sequences=sc.batch_per_replica).seconds
    decode = o.output_tokens * prediction.tpot_ms / 1e3
    return prediction.aggregate_tok_s * decode / (prefill + decode)


def arm_sources(record: Benchmark, arm: Arm) -> tuple[str, ...]:
    """Source ids behind an arm's results (the record's first source when results name none)."""
    found = {r.source for r in arm.results if r.source}
    if not found and record.sources:
        found = {record.sources[0]}
    return tuple(sorted(found))


def observations(
    ledger: Ledger, *, unknown_context: float | None = None, unknown_concurrency: int | None = None,
    records: Iterable[Benchmark] | None = None, unknown_acceptance: AcceptanceLookup | None = None,
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
            built = arm_scenario(ledger, record, arm, unknown_context=unknown_context,
                                 unknown_concurrency=unknown_concurrency, unknown_acceptance=unknown_acceptance)
            if built.scenario is None:
                skipped.append((ref, built.reason))
                continue
            value = float(result.value) * ((conversion(result.unit, "ms") or 1.0) if result.metric == "tpot" else 1.0)
            workload = effective_workload(record, arm)
            prompt, out = number(workload.input_tokens), number(workload.output_tokens)
            whole = result.metric == "output_throughput" and prompt is not None and out is not None and out > 0
            usable.append(Observation(ref, built.scenario, result.metric, value, arm_sources(record, arm),
                                      built.assumed, prompt if whole else None, out if whole else None,
                                      f"{record.id}#{arm.baseline}" if arm.baseline else None))
    return usable, skipped


def _clamp(name: str, value: float) -> float:
    low, high = BOUNDS[name]
    return min(max(value, low), high)


PARAMS = ("eta_m", "eta_c", "t0", "phi_exp", "t0_draft", "eta_attn", "t0_layer")
"""The fitted knobs, in the order of the optimiser's vector (log space; t0 and t0_draft shifted by 0.1 ms, the
φ(T) exponent by 1.5 so it may go below 0)."""
SHIFT = {"t0": 1e-4, "t0_draft": 1e-4, "phi_exp": 1.5, "t0_layer": 1e-6}
REPORTED = {"eta_m": "eta_m", "eta_c": "eta_c", "t0": "t0_ms", "phi_exp": "phi_exponent", "t0_draft": "t0_draft_ms",
            "eta_attn": "eta_attn", "t0_layer": "t0_layer_us"}
VISIBLE_SHARE = 0.05
"""φ(T) is fitted only when the verify attention takes at least this share of some speculative step; η_attn only
when the decode attention does in some arm and the arms ran at two or more contexts."""


def _decode(x: list[float], free: tuple[str, ...] = PARAMS) -> Efficiency:
    """Knobs from the optimiser's vector; φ(T) and η_attn not in ``free`` stay unset (exact kernel; η_m)."""
    v = {name: _clamp(name, math.exp(value) - SHIFT.get(name, 0.0)) for name, value in zip(PARAMS, x, strict=True)}
    return replace(Efficiency(), eta_m=v["eta_m"], eta_c=v["eta_c"], t0=v["t0"], t0_draft=v["t0_draft"],
                   phi_exp=v["phi_exp"] if "phi_exp" in free else None,
                   eta_attn=v["eta_attn"] if "eta_attn" in free else None,
                   t0_layer=v["t0_layer"] if "t0_layer" in free else None)


def _prior_value(eff: Efficiency, name: str) -> float:
    value = getattr(eff, name)
    if value is None:  # unset: an exact verify kernel (γ = 0); attention streams like weights (η_m)
        return {"phi_exp": 0.0, "t0_layer": DEFAULT_T0_LAYER}.get(name, eff.eta_m)
    return float(value)


def _encode(eff: Efficiency) -> list[float]:
    return [math.log(_prior_value(eff, name) + SHIFT.get(name, 0.0)) for name in PARAMS]


OWN_FIT = "calibration (this fit)"
"""Origin of a φ being fitted on one setup's own arms: it replaces the verify kernel the engine states
(``predict.verify_params``), so a single-setup calibration measures that kernel's cost; pooled fits never do."""


def fit_params(eff: Efficiency, own_phi: bool = False) -> Params:
    """``eff`` as the fit predicts with: its φ marked as this setup's own (``OWN_FIT``) when ``own_phi``."""
    return Params(eff, {"phi_exponent": OWN_FIT}) if own_phi and eff.phi_exp is not None else Params(eff)


def log_errors(obs: list[Observation], eff: Efficiency, own_phi: bool = False) -> list[float]:
    """``log(predicted / measured)`` for each observation, except that an arm whose baseline arm is also among
    ``obs`` is scored by its speedup, ``log(S_predicted / S_measured)`` (its error less its baseline's): the two
    arms share a setup (build, flags, host, prompts) whose efficiency cancels in the ratio, so the arm's own knobs
    (draft and verify costs) are fitted to what the speculation changed, not to the setup's base speed, which its
    baseline arm fits."""
    params = fit_params(eff, own_phi)
    raw = [math.log(predicted_value(o, predict(o.scenario, params), eff) / o.value) for o in obs]
    speed = [-e if o.metric == "tpot" else e for o, e in zip(obs, raw, strict=True)]  # a TPOT error is an inverse speed
    index = {o.ref: i for i, o in enumerate(obs)}
    return [speed[i] - speed[index[o.baseline]] if o.baseline is not None and o.baseline in index else raw[i]
            for i, o in enumerate(obs)]


@dataclass(frozen=True)
class Fit:
    """A fitted parameter set and how well it reproduces its own observations."""

    eff: Efficiency
    observations: list[Observation]
    median_abs_pct: float
    fitted: tuple[str, ...]
    """Reported names (``eta_m``, ``t0_ms``…) the observations could move; the others stay at their prior."""


def identifiable(obs: list[Observation], prior: Efficiency, per_layer: bool = False) -> tuple[str, ...]:
    """Which parameters these observations can see: φ only when verify attention weighs in a speculative step
    whose engine states no verify kernel, t0_draft only with drafting arms; η_m, η_c and the step overhead (t0, or
    t0_layer when ``per_layer``) always."""
    names = ["eta_m", "eta_c", "t0_layer" if per_layer else "t0"]
    params = Params(prior)
    spec = [o for o in obs if o.scenario.spec is not None]
    if any(o.scenario.spec is not None and o.scenario.spec.method not in FREE_METHODS for o in spec):
        names.append("t0_draft")
    if any((o.scenario.verify_kernel is None or not per_layer) and predict(o.scenario, params).step.share(
            "verify_attention") >= VISIBLE_SHARE for o in spec):  # pooled: a stated kernel fixes φ (verify_params)
        names.append("phi_exp")
    contexts = {round(o.scenario.context) for o in obs}
    if len(contexts) > 1 and any(predict(o.scenario, params).step.share("attention") >= VISIBLE_SHARE for o in obs):
        names.append("eta_attn")
    return tuple(n for n in PARAMS if n in names)


PREFILL_PARAMS = ("eta_prefill", "t0_prefill_ms")
GEMM_TERMS = ("weights", "lm_head", "draft_layer", "draft_lm_head")


def _minimise(obs: list[Observation], x0: list[float], free: tuple[str, ...],
              weights: list[float] | None = None, prior_weight: float = PRIOR_WEIGHT,
              own_phi: bool = False) -> Efficiency:
    """Nelder–Mead over the ``free`` coordinates of ``x0`` (the rest stay at the prior)."""
    index = [PARAMS.index(n) for n in free]
    w = weights or [1.0] * len(obs)
    total = sum(w)

    def full(y: list[float]) -> list[float]:
        x = list(x0)
        for i, v in zip(index, y, strict=True):
            x[i] = v
        return x

    def loss(y: list[float]) -> float:
        errors = log_errors(obs, _decode(full(y), free), own_phi)
        penalty = sum((a - x0[i]) ** 2 for a, i in zip(y, index, strict=True))
        return sum(wi * soft_l1(e) for wi, e in zip(w, errors, strict=True)) / total + prior_weight * penalty

    best, _ = nelder_mead(loss, [x0[i] for i in index], iterations=100 * len(free))
    for _ in range(2):  # restarts from the best point escape a collapsed simplex
        best, _ = nelder_mead(loss, best, step=0.15, iterations=60 * len(free))
    return _decode(full(best), free)


def fit(obs: list[Observation], start: Efficiency | None = None, weights: list[float] | None = None,
        prior_weight: float = PRIOR_WEIGHT, per_layer: bool = False) -> Fit:
    """Robust (soft-L1, ``ROBUST_SCALE``) least squares in log space (+ a pull of ``prior_weight`` to the defaults)
    over the identifiable parameters; ``weights`` per observation (default equal).

    η_c is kept only when some GEMM (weights, lm_head, draft) ends up compute-bound; otherwise it could only
    stand in for other physics (e.g. the verify-kernel factor φ), so it is fixed at its prior and the fit rerun.
    """
    if not obs:
        raise ValueError("no observations to fit")
    prior = start or (Efficiency(t0=0.0) if per_layer else Efficiency())
    own_phi = not per_layer  # one setup's fit measures its own verify kernel's φ; a pooled fit does not
    stated = {o.scenario.verify_kernel.exponent for o in obs if o.scenario.verify_kernel is not None}
    if own_phi and len(stated) == 1 and prior.phi_exp is None:
        prior = replace(prior, phi_exp=stated.pop())  # the stated kernel's φ(T) is the prior
    x0 = _encode(prior)
    free = identifiable(obs, prior, per_layer)
    eff = _minimise(obs, x0, free, weights, prior_weight, own_phi)
    gemm_bound = any(t.bound == "compute" and t.name in GEMM_TERMS
                     for o in obs for t in predict(o.scenario, fit_params(eff, own_phi)).step.terms)
    if not gemm_bound:
        free = tuple(n for n in free if n != "eta_c")
        eff = _minimise(obs, x0, free, weights, prior_weight, own_phi)
    errors = [abs(math.exp(e) - 1.0) * 100.0 for e in log_errors(obs, eff, own_phi)]
    return Fit(eff, obs, statistics.median(errors), tuple(REPORTED[n] for n in free))


def calibration_id(accelerator: str, engine: str) -> str:
    return f"calibration-{accelerator}-{engine}"


def calibration_record(accelerator: str, engine: str, result: Fit, skipped: list[tuple[str, str]],
                       prefill: list[PrefillObservation] | None = None) -> Calibration:
    """The ``calibration`` record of one fit: parameters as derived Quantities naming their observations
    (decode knobs from the decode arms, prefill knobs from the TTFT / prefill-throughput arms)."""
    refs = [o.ref for o in result.observations]
    prefill_refs = [o.ref for o in prefill or []]
    assumed = sorted({a for o in result.observations for a in o.assumed})
    values = {"eta_m": (result.eff.eta_m, "fraction of peak bandwidth"),
              "eta_c": (result.eff.eta_c, "fraction of peak compute"),
              "t0_ms": (result.eff.t0 * 1e3, "ms"),
              "phi_exponent": (result.eff.phi_exp or 0.0, "factor"),
              "eta_attn": (result.eff.eta_attn or result.eff.eta_m, "fraction of peak bandwidth"),
              "t0_draft_ms": (result.eff.t0_draft * 1e3, "ms per draft step"),
              "eta_prefill": (result.eff.eta_prefill, "fraction of peak compute"),
              "t0_prefill_ms": (result.eff.t0_prefill * 1e3, "ms")}
    inputs = refs + [f"assumed: {a}" for a in assumed]
    pre_assumed = sorted({a for o in prefill or [] for a in o.assumed})
    pre_inputs = prefill_refs + [f"assumed: {a}" for a in pre_assumed]
    fitted = set(result.fitted) | ({"eta_prefill", "t0_prefill_ms"} if prefill_refs else set())
    params = {
        name: Quantity(value=round(v, 6), unit=unit, provenance="derived", formula=FORMULA,
                       inputs=(pre_inputs if name in PREFILL_PARAMS else inputs) or ["none: default"],
                       note="" if name in fitted else "not identifiable from these arms: default kept")
        for name, (v, unit) in values.items()
    }
    lines = [
        f"Fitted by `{FORMULA}` on {len(refs)} arm(s) for {accelerator} × {engine}.",
        "",
        f"Median absolute error on the fitted arms: {result.median_abs_pct:.1f} %.",
    ]
    if assumed:
        lines += ["", "Assumptions made for arms with unknown conditions (used for this fit only; the benchmark",
                  "records keep the condition unknown):",
                  *(f"- {o.ref}: {'; '.join(o.assumed)}" for o in result.observations if o.assumed)]
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


def with_history(record: Calibration, previous: object, change: str, on: dt.date) -> Calibration | None:
    """``record`` carrying the history of the record it replaces (if any) plus one entry for this fit; None when
    the fit equals the record it would replace (nothing to write: a history entry would claim a change)."""
    kept = list(previous.history) if isinstance(previous, Calibration) else []
    if isinstance(previous, Calibration):
        if record.model_dump(exclude={"history"}) == previous.model_dump(exclude={"history"}):
            return None
        why = "refit: the physics model or the arms it is fitted on changed"
        numbers_changed = _numbers(record) != _numbers(previous)
    else:
        why, numbers_changed = "first fit of this (hardware, engine)", True
    entry = HistoryEntry(date=on, change=change, why=why, numbers_changed=numbers_changed)
    return record.model_copy(update={"history": [*kept, entry]})


def _numbers(record: Calibration) -> dict[str, float | None]:
    """The calibration's numbers: its parameters' values and its residual."""
    values: dict[str, float | None] = {name: q.value for name, q in record.parameters.items()}
    values["residual_pct"] = None if record.residual_pct is None else record.residual_pct.value
    return values


def calibrate_ledger(
    ledger: Ledger, *, accelerator: str | None = None, engine: str | None = None,
    unknown_context: float | None = None, unknown_concurrency: int | None = None,
    exclude_sources: Iterable[str] = (),
) -> tuple[list[tuple[Calibration, Fit]], list[tuple[str, str]]]:
    """Fit every (accelerator, engine) group with decode data (and its prefill knobs where TTFT / prefill data
    exist); returns the records (not written) and skipped arms. A group that pools several campaigns
    (``campaigns.py``) weighs its arms by ``pooling.campaign_weights``, so the campaign with the most arms does
    not stand for the setup by count; a one-campaign group's arms weigh alike (an unweighted fit)."""
    excluded = set(exclude_sources)
    obs, skipped = observations(ledger, unknown_context=unknown_context, unknown_concurrency=unknown_concurrency)
    pre_obs, pre_skipped = prefill_observations(ledger, unknown_concurrency=unknown_concurrency)
    groups: dict[tuple[str, str], list[Observation]] = {}
    for o in obs:
        if excluded.intersection(o.sources):
            continue
        if (accelerator and o.key[0] != accelerator) or (engine and o.key[1] != engine):
            continue
        groups.setdefault(o.key, []).append(o)
    record_campaign = campaign_of(campaigns(ledger))

    def campaign(o: Observation | PrefillObservation) -> str:
        record = o.ref.split("#", 1)[0]
        return record_campaign.get(record, record)

    out = []
    for (acc, eng), group in sorted(groups.items()):
        result = fit(group, weights=campaign_weights(group, campaign))
        pre = [p for p in pre_obs if p.key == (acc, eng)]
        if pre:
            eff, _ = fit_prefill(pre, result.eff, weights=campaign_weights(pre, campaign))
            result = replace(result, eff=eff)
        out.append((calibration_record(acc, eng, result, [], pre), result))
    return out, skipped + pre_skipped


__all__ = [
    "FORMULA",
    "POOLED_PRIOR_WEIGHT",
    "Fit",
    "Observation",
    "calibrate_ledger",
    "calibration_id",
    "calibration_record",
    "fit",
    "fit_params",
    "log_errors",
    "measured",
    "observations",
    "predicted_value",
    "soft_l1",
    "with_history",
]
