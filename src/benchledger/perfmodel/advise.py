"""``advise``: rank the configurations a user can choose (spec on/off and k, weight format, devices / TP) by the
model's predicted tok/s, with the reason each wins or loses in words taken from its limiting terms."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from benchledger.perfmodel.acceptance import DEFAULT_ALPHA, AcceptanceChoice
from benchledger.perfmodel.memory import fit_check
from benchledger.perfmodel.nearest import NearArm
from benchledger.perfmodel.predict import Params, Prediction, Scenario, predict, verify_params
from benchledger.perfmodel.roofline import Efficiency, verify_factor
from benchledger.perfmodel.specdec import SpecConfig
from benchledger.schema.metrics import spec_outcome


@dataclass(frozen=True)
class Nearby:
    """A measured arm next to an option: its per-stream tok/s and the option's prediction relative to it."""

    arm: NearArm
    measured_tok_s: float
    delta_pct: float
    """(predicted / measured − 1) × 100 on per-stream tok/s."""

    def to_json(self) -> dict[str, object]:
        return {"arm": self.arm.ref, "conditions": self.arm.conditions, "metric": self.arm.metric,
                "value": round(self.arm.value, 4), "unit": self.arm.unit,
                "measured_tok_s_per_stream": round(self.measured_tok_s, 3), "delta_pct": round(self.delta_pct, 1)}


@dataclass(frozen=True)
class Option:
    """One ranked configuration."""

    label: str
    scenario: Scenario
    prediction: Prediction | None
    reason: str
    meets_target: bool | None = None
    acceptance: AcceptanceChoice | None = None
    tok_s_range: tuple[float, float] | None = None
    """Per-stream tok/s at the lowest and highest measured acceptance."""
    nearby: tuple[Nearby, ...] = ()

    def to_json(self) -> dict[str, object]:
        p = self.prediction
        return {
            "option": self.label, "weights": self.scenario.weights.id, "devices": self.scenario.devices,
            "tp": self.scenario.tp_size, "spec": None if self.scenario.spec is None else
            {"method": self.scenario.spec.method, "k": self.scenario.spec.k},
            "tok_s_per_stream": None if p is None else round(p.tok_s_per_stream, 3),
            "aggregate_tok_s": None if p is None else round(p.aggregate_tok_s, 3),
            "speedup": None if p is None or p.speedup is None else round(p.speedup, 3),
            "outcome": None if p is None or p.speedup is None else spec_outcome(p.speedup),
            "limiting": [] if p is None else p.limiting, "meets_target": self.meets_target, "reason": self.reason,
            "acceptance": None if self.acceptance is None else self.acceptance.to_json(),
            "tok_s_per_stream_range": None if self.tok_s_range is None else [round(v, 3) for v in self.tok_s_range],
            "nearest_measured": [n.to_json() for n in self.nearby],
        }


def per_stream(arm: NearArm) -> float:
    """A near arm's decode result as per-stream tok/s (aggregate ÷ its concurrency; TPOT → 1000 / TPOT)."""
    if arm.metric == "tpot":
        return 1000.0 / (arm.value * (1000.0 if arm.unit == "s" else 1.0))
    if arm.metric == "output_throughput":
        return arm.value / (arm.concurrency or 1)
    return arm.value


def explain(p: Prediction, sc: Scenario, eff: Efficiency) -> str:
    """The limiting terms of a prediction, in words."""
    words = []
    for name in p.limiting:
        term = p.step.term(name)
        bound = term.bound if term is not None else ""
        if name == "verify_attention":
            phi = verify_factor(eff, sc.spec.query_tokens if sc.spec else 1)
            words.append(f"verify attention dominates at {sc.context:g} tokens: φ(T)·L·β with φ={phi:.3g}")
        elif name == "weights" and bound == "compute":
            rows = sc.batch_per_replica * (sc.spec.query_tokens if sc.spec else 1)
            words.append(f"GEMMs over {rows} rows are compute-bound")
        elif name == "weights":
            words.append("weight streaming (memory-bound)")
        elif name == "draft_lm_head":
            words.append("draft cost: the full lm_head is read every draft step")
        elif name == "recurrent_state":
            writes = sc.spec.query_tokens if sc.spec and sc.spec.state_snapshots else 1
            words.append(f"recurrent-state traffic (1 read + {writes} write(s) per sequence)")
        elif name in ("attention",):
            words.append(f"KV reads at {sc.context:g} tokens")
        elif name == "tp_allreduce":
            words.append("TP all-reduce latency")
        elif name == "overhead":
            words.append("per-step overhead t0")
        else:
            words.append(name)
    return "; ".join(words)


def _spec(method: str, choice: AcceptanceChoice, al: float | None, snapshots: bool) -> SpecConfig:
    if al is None and choice.rates:
        return SpecConfig(method, choice.k, choice.rates[:choice.k], state_snapshots=snapshots)
    return SpecConfig(method, choice.k, acceptance_length=choice.al if al is None else al, state_snapshots=snapshots)


def advise(
    base: Scenario, *, params_for: Callable[[Scenario], Params], formats: list[Scenario], device_counts: list[int],
    ks: list[int], acceptance: Callable[[int], AcceptanceChoice], method: str = "mtp",
    target_tok_s: float | None = None, state_snapshots: bool = True,
    nearest: Callable[[Scenario], list[NearArm]] | None = None,
) -> list[Option]:
    """Rank every (weights, devices, spec k) combination; non-fitting ones go last with their reason.

    Each k is predicted at ``acceptance(k)``; when that comes from measured arms, the per-stream tok/s at the
    lowest and highest measured acceptance is given too. ``nearest`` lists measured arms next to each option.
    """
    options: list[Option] = []
    choices = {k: acceptance(k) for k in ks}
    for fmt_sc in formats:
        for devices in device_counts:
            sc0 = replace(fmt_sc, devices=devices, tp=devices, hardware=fmt_sc.hardware.with_count(devices))
            for k in [0, *ks]:
                choice = choices.get(k)
                spec = None if choice is None else _spec(method, choice, None, state_snapshots)
                sc = replace(sc0, spec=spec)
                label = f"{sc.weights.id} × {devices} dev (TP {devices}), " + (f"{method} k={k}" if k else "no spec")
                memory = fit_check(sc)
                if not memory.ok:
                    options.append(Option(label, sc, None, f"does not fit: {memory.describe()}", acceptance=choice))
                    continue
                params = params_for(sc)
                p = predict(sc, params)
                reason = explain(p, sc, verify_params(sc, params).eff)  # the φ predict used
                if p.speedup is not None:
                    reason = (f"spec {spec_outcome(p.speedup)} (S={p.speedup:.2f}, AL={p.acceptance_length:.2f}); "
                              f"limited by {reason}")
                else:
                    reason = f"limited by {reason}"
                span = None
                if choice is not None and choice.low is not None and choice.high is not None:
                    span = tuple(predict(replace(sc, spec=_spec(method, choice, al, state_snapshots)),
                                         params).tok_s_per_stream for al in (choice.low[0], choice.high[0]))
                near = tuple(Nearby(a, per_stream(a), (p.tok_s_per_stream / per_stream(a) - 1.0) * 100.0)
                             for a in (nearest(sc) if nearest else []))
                meets = None if target_tok_s is None else p.tok_s_per_stream >= target_tok_s
                options.append(Option(label, sc, p, reason, meets, choice, span, near))  # type: ignore[arg-type]
    return sorted(options, key=lambda o: (o.prediction is None, not o.meets_target if o.meets_target is not None
                                          else False, -(o.prediction.aggregate_tok_s if o.prediction else 0.0)))


FORMAT_CAVEAT = ("formats are compared by bytes per parameter (and compute peaks); whether this hardware and engine "
                 "run a format natively is not checked")


def _nearest_text(option: Option) -> str:
    if not option.nearby:
        return "no measured arm of this model on this hardware"
    return "; ".join(f"{n.arm.ref} ({n.arm.conditions}): {n.measured_tok_s:.1f} tok/s/stream measured, prediction "
                     f"{n.delta_pct:+.0f} %" for n in option.nearby)


def target_verdict(options: list[Option], target_tok_s: float | None) -> str | None:
    """Whether any option meets the per-stream target at its acceptance — else at the highest measured one —
    or how far the best falls short, with its limiting terms and the nearest measured arms."""
    if target_tok_s is None:
        return None
    predicted = [o for o in options if o.prediction is not None]
    if not predicted:
        return f"target {target_tok_s:g} tok/s per stream: no option could be predicted"
    head = f"target {target_tok_s:g} tok/s per stream"
    met = [o for o in predicted if o.meets_target]
    if met:
        best = met[0]
        al = "" if best.acceptance is None else f" (AL {best.acceptance.al:.2f}: {best.acceptance.origin})"
        return (f"{head}: met by {len(met)} option(s); best {best.label} at "
                f"{best.prediction.tok_s_per_stream:.1f} tok/s{al}")  # type: ignore[union-attr]
    at_high = [o for o in predicted if o.tok_s_range is not None and o.tok_s_range[1] >= target_tok_s]
    if at_high:
        best = max(at_high, key=lambda o: o.tok_s_range[1])  # type: ignore[index]
        assert best.acceptance is not None and best.acceptance.high is not None and best.tok_s_range is not None
        assert best.prediction is not None
        return (f"{head}: met by {len(at_high)} option(s) at the ledger's highest measured acceptance (AL "
                f"{best.acceptance.high[0]:.2f}, {best.acceptance.high[1]}): best {best.label} at "
                f"{best.tok_s_range[1]:.1f} tok/s; not at the median measured AL {best.acceptance.al:.2f} "
                f"({best.prediction.tok_s_per_stream:.1f} tok/s) nor the lowest ({best.tok_s_range[0]:.1f} tok/s); "
                f"nearest measured: {_nearest_text(best)}")
    best = max(predicted, key=_best_tok_s)
    tok_s = best.prediction.tok_s_per_stream  # type: ignore[union-attr]
    high = "" if best.tok_s_range is None else f", {best.tok_s_range[1]:.1f} at the highest measured acceptance"
    return (f"{head}: NOT met by any option; best {best.label} at {tok_s:.1f} tok/s{high} "
            f"({target_tok_s / _best_tok_s(best):.2f}x short); {best.reason}; nearest measured: "
            f"{_nearest_text(best)}")


def _best_tok_s(option: Option) -> float:
    """Per-stream tok/s at the option's acceptance, or at the highest measured one when that is higher."""
    central = option.prediction.tok_s_per_stream if option.prediction is not None else 0.0
    return max(central, option.tok_s_range[1] if option.tok_s_range is not None else 0.0)


__all__ = ["DEFAULT_ALPHA", "FORMAT_CAVEAT", "AcceptanceChoice", "Nearby", "Option", "advise", "explain", "per_stream",
           "target_verdict"]
