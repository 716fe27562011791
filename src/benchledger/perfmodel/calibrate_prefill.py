"""Fit the prefill knobs ``η_p`` (``eta_prefill``) and ``t0_prefill`` from the ledger's TTFT and prefill results.

An observation is an arm with a ``ttft`` or ``prefill_throughput`` result (value / mean / median / p50), a known
prompt length, and a request that prefilled alone: concurrency 1 (known, or assumed for the caller's own use and
stated). TTFT at concurrency > 1 also waits behind other requests' work, which ``prefill.py`` does not model, so
those arms are skipped with that reason. The fit minimises the same soft-L1 loss of log errors as
``calibrate.fit`` (``fitting.soft_l1``), with per-observation weights (``pooling.campaign_weights`` where the arms come
from several campaigns) and the same weak pull to the defaults, over the two knobs; every other parameter stays as given.

Two kinds of arm (``PrefillObservation.kind``): a *forward* arm (a prefill throughput, e.g. llama-bench ``pp``:
prompt tokens / forward time, no HTTP, scheduler or per-request cost) and a *request* arm (a served request's
TTFT: the forward plus the engine's fixed per-request cost ``t0_prefill``). ``fit_prefill_pooled`` fits one η_p
over both and one ``t0_prefill`` per engine over the request arms, so one engine's per-request cost is never
charged to another's requests nor to a forward arm.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, replace

from benchledger.ledger.store import Ledger
from benchledger.perfmodel.fitting import nelder_mead, soft_l1
from benchledger.perfmodel.inputs import arm_concurrency, arm_scenario, number
from benchledger.perfmodel.predict import Scenario
from benchledger.perfmodel.prefill import prefill_time
from benchledger.perfmodel.roofline import Efficiency
from benchledger.schema import Arm, Benchmark, Result, effective_workload
from benchledger.schema.metrics import CENTRAL_STATS

PREFILL_METRICS = ("ttft", "prefill_throughput")
PREFILL_CEILING = Efficiency(eta_m=1.0, eta_c=1.0, t0=0.0, eta_prefill=1.0, t0_prefill=0.0, allreduce_latency=0.0,
                             links=False)
"""η = 1, no overhead, free links: no prefill of the whole prompt can be faster."""
FORWARD, REQUEST = "forward", "request"
"""The two kinds of prefill arm (``PrefillObservation.kind``)."""
PRIOR_WEIGHT = 1e-4
BOUNDS = {"eta_prefill": (0.01, 1.0), "t0_prefill": (0.0, 5.0)}


@dataclass(frozen=True)
class PrefillObservation:
    """One measured TTFT (ms) or prefill throughput (tok/s) with its scenario and prompt length."""

    ref: str
    scenario: Scenario
    metric: str
    value: float
    prompt: float
    assumed: tuple[str, ...] = ()
    concurrency_known: bool = True
    """False when the concurrency was assumed for an unknown one (stated in ``assumed``)."""

    @property
    def key(self) -> tuple[str, str]:
        return self.scenario.hardware.id, self.engine

    @property
    def engine(self) -> str:
        return self.scenario.engine or "unknown"

    @property
    def kind(self) -> str:
        """``REQUEST`` for a TTFT (forward + the engine's per-request cost), ``FORWARD`` for a prefill throughput
        (the forward alone)."""
        return REQUEST if self.metric == "ttft" else FORWARD

    @property
    def teaches(self) -> bool:
        """Whether the arm may train a fit: a TTFT at an unknown concurrency may also hold the wait behind the
        requests in flight beside it (not modelled), which a fit would learn as forward speed or per-request cost;
        it is still scored, at its stated assumption."""
        return self.kind == FORWARD or self.concurrency_known


def first_central_result(arm: Arm, metrics: tuple[str, ...]) -> Result | None:
    """The arm's first positive central result (``CENTRAL_STATS``) of the first of ``metrics`` it has."""
    for metric in metrics:
        for r in arm.results:
            if r.metric == metric and r.stat in CENTRAL_STATS and r.value > 0:
                return r
    return None


def prefill_result(arm: Arm) -> Result | None:
    """The arm's TTFT (preferred) or prefill-throughput result."""
    return first_central_result(arm, PREFILL_METRICS)


def predicted_prefill(o: PrefillObservation, eff: Efficiency) -> float:
    """The model's TTFT (ms) or prefill tok/s for ``o``. A prefill throughput is the forward alone (e.g.
    llama-bench ``pp``: prompt tokens / forward time), so it carries no per-request ``t0_prefill``."""
    if o.metric == "ttft":
        return prefill_time(o.scenario.step_config(), o.prompt, eff).seconds * 1e3
    return o.prompt / prefill_time(o.scenario.step_config(), o.prompt, replace(eff, t0_prefill=0.0)).seconds


def prefill_observations(
    ledger: Ledger, *, unknown_concurrency: int | None = None,
) -> tuple[list[PrefillObservation], list[tuple[str, str]]]:
    """Usable prefill observations and, for arms with a prefill result that cannot be used, the reason."""
    usable: list[PrefillObservation] = []
    skipped: list[tuple[str, str]] = []
    for record in ledger.typed("benchmark", Benchmark):
        for arm in record.arms:
            result = prefill_result(arm)
            if result is None:
                continue
            ref = f"{record.id}#{arm.name}"
            prompt = number(effective_workload(record, arm).input_tokens)
            if prompt is None:
                skipped.append((ref, "prompt length unknown"))
                continue
            built = arm_scenario(ledger, record, arm, unknown_concurrency=unknown_concurrency)
            if built.scenario is None:
                skipped.append((ref, built.reason))
                continue
            if built.scenario.hardware.gemm_peak(built.scenario.weights.id)[1] is None:
                skipped.append((ref, f"{built.scenario.hardware.id} has no compute peak: prefill not predicted"))
                continue
            if built.scenario.concurrency != 1:
                skipped.append((ref, f"concurrency {built.scenario.concurrency}: TTFT includes queueing"))
                continue
            value = float(result.value) * (1000.0 if result.metric == "ttft" and result.unit == "s" else 1.0)
            sc = replace(built.scenario, prompt_tokens=prompt)
            o = PrefillObservation(ref, sc, result.metric, value, prompt, built.assumed)
            bound = predicted_prefill(o, PREFILL_CEILING)
            if (value < bound) if o.metric == "ttft" else (value > bound):
                skipped.append((ref, f"{o.metric} {value:g} beats the prefill ceiling {bound:.4g} (η = 1): the "
                                     "prompt was not all computed (prefix cache?)"))
                continue
            usable.append(replace(o, concurrency_known=arm_concurrency(record, arm) is not None))
    return usable, skipped


def _decode(x: list[float], base: Efficiency) -> Efficiency:
    eta = min(max(math.exp(x[0]), BOUNDS["eta_prefill"][0]), BOUNDS["eta_prefill"][1])
    t0 = min(max(math.exp(x[1]) - 1e-4, BOUNDS["t0_prefill"][0]), BOUNDS["t0_prefill"][1])
    return replace(base, eta_prefill=eta, t0_prefill=t0)


def fit_prefill(obs: list[PrefillObservation], base: Efficiency | None = None,
                weights: list[float] | None = None) -> tuple[Efficiency, float]:
    """(``base`` with fitted ``eta_prefill`` and ``t0_prefill``, median |error| % on ``obs``); ``weights`` per
    observation (default equal)."""
    if not obs:
        raise ValueError("no prefill observations to fit")
    base = base or Efficiency()
    x0 = [math.log(base.eta_prefill), math.log(base.t0_prefill + 1e-4)]
    w = weights or [1.0] * len(obs)
    total = sum(w)

    def errors(eff: Efficiency) -> list[float]:
        return [math.log(predicted_prefill(o, eff) / o.value) for o in obs]

    def loss(x: list[float]) -> float:
        errs = errors(_decode(x, base))
        return (sum(wi * soft_l1(e) for wi, e in zip(w, errs, strict=True)) / total
                + PRIOR_WEIGHT * sum((a - b) ** 2 for a, b in zip(x, x0, strict=True)))

    best, _ = nelder_mead(loss, x0, iterations=200)
    eff = _decode(best, base)
    return eff, statistics.median(abs(math.exp(e) - 1.0) * 100.0 for e in errors(eff))


@dataclass(frozen=True)
class PooledPrefillFit:
    """One η_p for every arm of a pooled fit and one ``t0_prefill`` per engine of its request arms."""

    eff: Efficiency
    """η_p fitted; ``t0_prefill`` the default, used for an engine with no request arm in the fit."""
    t0_by_engine: dict[str, float]
    request_arms: dict[str, int]
    """Request (TTFT) arms per engine in the fit."""

    def for_arm(self, o: PrefillObservation) -> tuple[Efficiency, str]:
        """(efficiency for ``o``, where its ``t0_prefill`` came from)."""
        if o.kind == FORWARD:
            return self.eff, "none (forward only)"
        if o.engine in self.t0_by_engine:
            return (replace(self.eff, t0_prefill=self.t0_by_engine[o.engine]),
                    f"{o.engine} ({self.request_arms[o.engine]} TTFT arms)")
        return self.eff, f"default {self.eff.t0_prefill * 1e3:g} ms (no other campaign's TTFT of {o.engine})"


def fit_prefill_pooled(obs: list[PrefillObservation], base: Efficiency | None = None,
                       weights: list[float] | None = None) -> PooledPrefillFit:
    """One η_p over ``obs`` (forward and request arms) and one ``t0_prefill`` per engine of the request arms, by
    the soft-L1 loss and prior pull of ``fit_prefill``; ``weights`` per observation (default equal)."""
    if not obs:
        raise ValueError("no prefill observations to fit")
    base = base or Efficiency()
    engines = sorted({o.engine for o in obs if o.kind == REQUEST})
    x0 = [math.log(base.eta_prefill)] + [math.log(base.t0_prefill + 1e-4)] * len(engines)
    w = weights or [1.0] * len(obs)
    total = sum(w)

    def decode(x: list[float]) -> tuple[Efficiency, dict[str, float]]:
        eta = min(max(math.exp(x[0]), BOUNDS["eta_prefill"][0]), BOUNDS["eta_prefill"][1])
        t0s = {e: min(max(math.exp(v) - 1e-4, BOUNDS["t0_prefill"][0]), BOUNDS["t0_prefill"][1])
               for e, v in zip(engines, x[1:], strict=True)}
        return replace(base, eta_prefill=eta), t0s

    def loss(x: list[float]) -> float:
        eff, t0s = decode(x)
        errs = [math.log(predicted_prefill(o, replace(eff, t0_prefill=t0s.get(o.engine, eff.t0_prefill))) / o.value)
                for o in obs]
        return (sum(wi * soft_l1(e) for wi, e in zip(w, errs, strict=True)) / total
                + PRIOR_WEIGHT * sum((a - b) ** 2 for a, b in zip(x, x0, strict=True)))

    best, _ = nelder_mead(loss, x0, iterations=200 * len(x0))
    best, _ = nelder_mead(loss, best, step=0.15, iterations=100 * len(x0))
    eff, t0s = decode(best)
    counts = {e: sum(1 for o in obs if o.kind == REQUEST and o.engine == e) for e in engines}
    return PooledPrefillFit(eff, t0s, counts)


__all__ = ["FORWARD", "PREFILL_METRICS", "REQUEST", "PooledPrefillFit", "PrefillObservation", "fit_prefill",
           "fit_prefill_pooled", "predicted_prefill", "prefill_observations", "prefill_result"]
