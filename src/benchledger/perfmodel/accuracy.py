"""Campaign hold-out accuracy of the physics model (``benchmarks/model_accuracy.py`` renders it).

For each campaign (``campaigns.py``) every arm of it is predicted with parameters fitted on the *other*
campaigns' arms only — the held-out campaign never touches the fit, nor the acceptance lookup. Parameters come
from the most specific level with at least ``MIN_TRAINING_ARMS`` training arms (``LEVELS``): the same hardware ×
engine, else the same hardware family × engine, else the same engine on any hardware, else every other campaign,
else the defaults; a level needs arms from ``MIN_TRAINING_CAMPAIGNS`` campaigns, each weighing more the more arms
it gives, towards a fixed total (``pooling.campaign_weights``).
Speculative arms are scored with their baseline arm under the same parameters, so a predicted speedup is the
ratio of two held-out predictions.
"""

from __future__ import annotations

import math
import os
import statistics
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from typing import TypeVar

from benchledger.perfmodel.calibrate import POOLED_PRIOR_WEIGHT, Observation, fit, predicted_value
from benchledger.perfmodel.calibrate_prefill import (
    FORWARD,
    PooledPrefillFit,
    PrefillObservation,
    fit_prefill_pooled,
    predicted_prefill,
)
from benchledger.perfmodel.pooling import campaign_weights
from benchledger.perfmodel.predict import Params, Prediction, predict
from benchledger.perfmodel.roofline import Efficiency
from benchledger.schema.metrics import spec_outcome

MIN_TRAINING_ARMS = 3
"""A level's fit is used only when it has at least this many training arms (fewer: the next level)."""
MIN_TRAINING_CAMPAIGNS = 2
"""... and only when those arms come from at least this many campaigns: one campaign's setup (its prompts, flags,
build, measuring script) cannot be told apart from the hardware's efficiency, so it does not speak for a level."""
_T = TypeVar("_T")
LEVELS = ("hardware × engine", "hardware family × engine", "engine", "every engine", "default")
"""From the most to the least specific; "every engine" pools all other campaigns (evidence beats the defaults,
which are guesses), "default" is used only when even that pool is too small."""


@dataclass(frozen=True)
class Scored:
    """One held-out prediction of one arm."""

    obs: Observation
    campaign: str
    family: str
    measured_tok_s: float
    predicted_tok_s: float
    prediction: Prediction
    level: str
    """Which ``LEVELS`` entry the parameters came from."""
    training_arms: int

    @property
    def abs_pct_error(self) -> float:
        return abs(self.predicted_tok_s / self.measured_tok_s - 1.0) * 100.0


@dataclass(frozen=True)
class Pair:
    """A speculative arm and its baseline, both held out under the same parameters."""

    spec: Scored
    base: Scored

    @property
    def measured(self) -> float:
        return self.spec.measured_tok_s / self.base.measured_tok_s

    @property
    def predicted(self) -> float:
        return self.spec.predicted_tok_s / self.base.predicted_tok_s

    @property
    def abs_pct_error(self) -> float:
        return abs(self.predicted / self.measured - 1.0) * 100.0

    @property
    def right_side(self) -> bool:
        return (self.measured > 1.0) == (self.predicted > 1.0)


def tok_s(value: float, metric: str) -> float:
    """A decode result as tok/s (TPOT in ms → 1000 / TPOT)."""
    return 1000.0 / value if metric == "tpot" else value


def enough(train: list[_T], campaign_of: Callable[[_T], str]) -> bool:
    """Whether a level's training arms may speak for it: ``MIN_TRAINING_ARMS`` arms from ``MIN_TRAINING_CAMPAIGNS``
    campaigns."""
    return len(train) >= MIN_TRAINING_ARMS and len({campaign_of(o) for o in train}) >= MIN_TRAINING_CAMPAIGNS


def _level_keys(o: Observation) -> list[tuple[str, tuple[str, str]]]:
    hw, engine = o.key
    return [(LEVELS[0], (hw, engine)), (LEVELS[1], (o.scenario.hardware.family, engine)), (LEVELS[2], ("*", engine)),
            (LEVELS[3], ("*", "*"))]


def _pooled_fit(train: list[Observation], weights: list[float]) -> Efficiency:
    """One level's pooled fit (module level, so a worker process can run it)."""
    return fit(train, weights=weights, prior_weight=POOLED_PRIOR_WEIGHT, per_layer=True).eff


def fit_workers() -> int:
    """Processes for the hold-out fits: the CPUs this process may run on (the fits are independent and
    deterministic, so running them side by side changes no number)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class HeldOutFits:
    """Fits on the training campaigns of one held-out campaign, cached per (held-out campaign, level key)."""

    def __init__(self, obs: list[Observation], campaign_of: Callable[[Observation], str]) -> None:
        self.obs = obs
        self.campaign_of = campaign_of
        self._cache: dict[tuple[str, str, tuple[str, str]], tuple[Efficiency, int] | None] = {}

    def _members(self, level: str, key: tuple[str, str], held_out: str) -> list[Observation]:
        return [o for o in self.obs if self.campaign_of(o) != held_out
                and dict(_level_keys(o))[level] == key]

    def prefetch(self, held_out_of: Iterable[tuple[Observation, str]], workers: int = 1) -> None:
        """Run every fit ``params`` will ask for, ``workers`` processes side by side. Which level an arm's
        parameters come from depends only on training-arm counts, so the needed fits are known before any runs."""
        needed: dict[tuple[str, str, tuple[str, str]], list[Observation]] = {}
        for o, held_out in held_out_of:
            for level, key in _level_keys(o):
                cache_key = (held_out, level, key)
                if cache_key in needed:
                    break
                if cache_key in self._cache:
                    if self._cache[cache_key] is None:  # known too small: the next level
                        continue
                    break
                train = self._members(level, key, held_out)
                if enough(train, self.campaign_of):
                    needed[cache_key] = train
                    break
                self._cache[cache_key] = None
        jobs = [(train, campaign_weights(train, self.campaign_of)) for train in needed.values()]
        if workers > 1 and len(jobs) > 1:
            with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
                effs = list(pool.map(_pooled_fit, *zip(*jobs, strict=True)))
        else:
            effs = [_pooled_fit(train, weights) for train, weights in jobs]
        for (cache_key, train), eff in zip(needed.items(), effs, strict=True):
            self._cache[cache_key] = (eff, len(train))

    def params(self, o: Observation, held_out: str) -> tuple[Efficiency, str, int]:
        """(efficiency, level, training arms) for an arm of the held-out campaign."""
        for level, key in _level_keys(o):
            cache_key = (held_out, level, key)
            if cache_key not in self._cache:
                train = self._members(level, key, held_out)
                self._cache[cache_key] = ((_pooled_fit(train, campaign_weights(train, self.campaign_of)), len(train))
                                          if enough(train, self.campaign_of) else None)
            found = self._cache[cache_key]
            if found is not None:
                return found[0], level, found[1]
        return Efficiency(), LEVELS[-1], 0


def hold_out(obs: list[Observation], campaign_of: Callable[[Observation], str],
             baselines: dict[str, str], workers: int = 1) -> tuple[list[Scored], list[Pair]]:
    """Every observation predicted with its campaign held out; speculative arms paired with their baselines
    (an arm and its baseline share record, subject and campaign, hence parameters). ``workers`` processes run
    the fits (``fit_workers()`` for all CPUs); the result is the same for any count."""
    fits = HeldOutFits(obs, campaign_of)
    fits.prefetch(((o, campaign_of(o)) for o in obs), workers)
    scored: dict[str, Scored] = {}
    for o in obs:
        eff, level, n = fits.params(o, campaign_of(o))
        p = predict(o.scenario, Params(eff))
        scored[o.ref] = Scored(o, campaign_of(o), o.scenario.hardware.family, tok_s(o.value, o.metric),
                               tok_s(predicted_value(o, p, eff), o.metric), p, level, n)
    pairs = [Pair(scored[o.ref], scored[baselines[o.ref]]) for o in obs
             if o.scenario.spec is not None and baselines.get(o.ref) in scored]
    return [scored[o.ref] for o in obs], pairs


@dataclass(frozen=True)
class ScoredPrefill:
    """One held-out TTFT (ms) or prefill-throughput (tok/s) prediction."""

    obs: PrefillObservation
    campaign: str
    predicted: float
    level: str
    training_arms: int
    t0_from: str = "default"
    """Where the arm's ``t0_prefill`` came from (``PooledPrefillFit.for_arm``)."""

    @property
    def abs_pct_error(self) -> float:
        return abs(self.predicted / self.obs.value - 1.0) * 100.0


def prefill_gemm_kind(o: PrefillObservation) -> str:
    """'moe' or 'dense': an MoE prefill multiplies each expert's gathered rows (≈ N·k/E of the N prompt rows) in
    grouped per-expert GEMMs, a different kernel from a dense model's N-row GEMMs, so the two do not share one
    η_p (``hold_out_prefill`` pools prefill arms of the same kind only)."""
    return "moe" if o.scenario.model.is_moe else "dense"


PREFILL_LEVELS = (*LEVELS[:4], "every engine, either arm kind", LEVELS[-1])
"""The prefill hold-out's levels: ``LEVELS`` over arms of the held-out arm's own kind (forward or request,
``PrefillObservation.kind``), then, when none has enough, every engine's arms of both kinds (η_p from either,
``t0_prefill`` only from request arms of the arm's own engine), then the defaults."""


def prefill_level_keys(o: PrefillObservation) -> list[tuple[str, tuple[str, ...]]]:
    """(level, key) of ``o`` for each of ``PREFILL_LEVELS`` but the defaults: same GEMM kind always; the arm kind
    too, but for the last pooled level."""
    hw, engine = o.key
    gemm = prefill_gemm_kind(o)
    return [(PREFILL_LEVELS[0], (hw, engine, gemm, o.kind)),
            (PREFILL_LEVELS[1], (o.scenario.hardware.family, engine, gemm, o.kind)),
            (PREFILL_LEVELS[2], ("*", engine, gemm, o.kind)), (PREFILL_LEVELS[3], ("*", "*", gemm, o.kind)),
            (PREFILL_LEVELS[4], ("*", "*", gemm, "*"))]


def hold_out_prefill(obs: list[PrefillObservation],
                     campaign_of: Callable[[PrefillObservation], str]) -> list[ScoredPrefill]:
    """Each prefill observation predicted with ``eta_prefill`` / ``t0_prefill`` fitted on the other campaigns'
    prefill arms only, at the first of ``PREFILL_LEVELS`` with ``MIN_TRAINING_ARMS`` from
    ``MIN_TRAINING_CAMPAIGNS`` (defaults otherwise), arms weighed by ``pooling.campaign_weights`` and the loss
    soft-L1, as in the decode fits. Each level pools arms of one GEMM kind (``prefill_gemm_kind``) and, but for
    the last, of the arm's own kind (a llama-bench ``pp`` arm has no per-request cost; a served TTFT does); every
    fit has one ``t0_prefill`` per engine (``fit_prefill_pooled``), and only arms that may teach
    (``PrefillObservation.teaches``) train."""
    cache: dict[tuple[str, str, tuple[str, ...]], tuple[PooledPrefillFit, int] | None] = {}
    teachers = [t for t in obs if t.teaches]
    out: list[ScoredPrefill] = []
    for o in obs:
        held_out = campaign_of(o)
        found: tuple[PooledPrefillFit, int] | None = None
        level = PREFILL_LEVELS[-1]
        for lvl, key in prefill_level_keys(o):
            if (held_out, lvl, key) not in cache:
                train = [t for t in teachers if campaign_of(t) != held_out and dict(prefill_level_keys(t))[lvl] == key]
                cache[(held_out, lvl, key)] = ((fit_prefill_pooled(train, weights=campaign_weights(train, campaign_of)),
                                                len(train)) if enough(train, campaign_of) else None)
            found = cache[(held_out, lvl, key)]
            if found is not None:
                level = lvl
                break
        if found is None:
            eff, t0_from, n = Efficiency(), f"default {Efficiency().t0_prefill * 1e3:g} ms", 0
            if o.kind == FORWARD:
                t0_from = "none (forward only)"
        else:
            (eff, t0_from), n = found[0].for_arm(o), found[1]
        out.append(ScoredPrefill(o, held_out, predicted_prefill(o, eff), level, n, t0_from))
    return out


def median(values: Iterable[float]) -> float | None:
    vals = list(values)
    return round(statistics.median(vals), 2) if vals else None


def outcome_counts(pairs: list[Pair]) -> dict[str, dict[str, int]]:
    """Measured and predicted counts of benefit / harm / no clear change (the one outcome band)."""
    out: dict[str, dict[str, int]] = {"measured": {}, "predicted": {}}
    for p in pairs:
        for side, value in (("measured", p.measured), ("predicted", p.predicted)):
            label = spec_outcome(value)
            out[side][label] = out[side].get(label, 0) + 1
    return out


def finite(values: Iterable[float]) -> bool:
    return all(math.isfinite(v) for v in values)


__all__ = ["LEVELS", "MIN_TRAINING_ARMS", "PREFILL_LEVELS", "HeldOutFits", "Pair", "Scored", "ScoredPrefill",
           "fit_workers", "hold_out", "hold_out_prefill", "median", "outcome_counts", "prefill_gemm_kind",
           "prefill_level_keys", "tok_s"]
