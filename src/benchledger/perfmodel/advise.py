"""``advise``: rank the configurations a user can choose (spec on/off and k, weight format, devices / TP) by the
model's predicted tok/s, with the reason each wins or loses in words taken from its limiting terms."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from benchledger.perfmodel.memory import fit_check
from benchledger.perfmodel.predict import Params, Prediction, Scenario, predict
from benchledger.perfmodel.specdec import SpecConfig

DEFAULT_ALPHA = 0.7
"""Default i.i.d. per-draft acceptance when no profile is given (r_i = α^i, Leviathan et al.)."""


@dataclass(frozen=True)
class Option:
    """One ranked configuration."""

    label: str
    scenario: Scenario
    prediction: Prediction | None
    reason: str
    meets_target: bool | None = None

    def to_json(self) -> dict[str, object]:
        p = self.prediction
        return {
            "option": self.label, "weights": self.scenario.weights.id, "devices": self.scenario.devices,
            "tp": self.scenario.tp_size, "spec": None if self.scenario.spec is None else
            {"method": self.scenario.spec.method, "k": self.scenario.spec.k},
            "tok_s_per_stream": None if p is None else round(p.tok_s_per_stream, 3),
            "aggregate_tok_s": None if p is None else round(p.aggregate_tok_s, 3),
            "speedup": None if p is None or p.speedup is None else round(p.speedup, 3),
            "limiting": [] if p is None else p.limiting, "meets_target": self.meets_target, "reason": self.reason,
        }


def explain(p: Prediction, sc: Scenario, phi: float) -> str:
    """The limiting terms of a prediction, in words."""
    words = []
    for name in p.limiting:
        term = p.step.term(name)
        bound = term.bound if term is not None else ""
        if name == "verify_attention":
            words.append(f"verify attention dominates at {sc.context:g} tokens: φ·L·β with φ={phi:g}")
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


def advise(
    base: Scenario, *, params_for: Callable[[Scenario], Params], formats: list[Scenario], device_counts: list[int],
    ks: list[int], rates: tuple[float, ...] | None, method: str = "mtp", target_tok_s: float | None = None,
) -> list[Option]:
    """Rank every (weights, devices, spec k) combination; non-fitting ones go last with their reason."""
    options: list[Option] = []
    for fmt_sc in formats:
        for devices in device_counts:
            sc0 = replace(fmt_sc, devices=devices, tp=devices, hardware=fmt_sc.hardware.with_count(devices))
            for k in [0, *ks]:
                spec = None
                if k > 0:
                    profile = rates if rates is not None else tuple(DEFAULT_ALPHA ** (i + 1) for i in range(k))
                    if len(profile) < k:
                        continue
                    spec = SpecConfig(method, k, profile[:k], state_snapshots=base.spec.state_snapshots
                                      if base.spec else True)
                sc = replace(sc0, spec=spec)
                label = f"{sc.weights.id} × {devices} dev (TP {devices}), " + (f"{method} k={k}" if k else "no spec")
                memory = fit_check(sc)
                if not memory.ok:
                    options.append(Option(label, sc, None, f"does not fit: {memory.describe()}"))
                    continue
                params = params_for(sc)
                p = predict(sc, params)
                reason = explain(p, sc, params.eff.phi)
                if p.speedup is not None:
                    verdict = "helps" if p.speedup > 1.0 else "hurts"
                    reason = f"spec {verdict} (S={p.speedup:.2f}, AL={p.acceptance_length:.2f}); limited by {reason}"
                else:
                    reason = f"limited by {reason}"
                meets = None if target_tok_s is None else p.tok_s_per_stream >= target_tok_s
                options.append(Option(label, sc, p, reason, meets))
    ranked = sorted(
        options,
        key=lambda o: (o.prediction is None, not o.meets_target if o.meets_target is not None else False,
                       -(o.prediction.aggregate_tok_s if o.prediction else 0.0)),
    )
    return ranked


FORMAT_CAVEAT = ("formats are compared by bytes per parameter (and compute peaks); whether this hardware and engine "
                 "run a format natively is not checked")


def target_verdict(options: list[Option], target_tok_s: float | None) -> str | None:
    """One sentence: which options meet the per-stream target, or how far the best one falls short."""
    if target_tok_s is None:
        return None
    predicted = [o for o in options if o.prediction is not None]
    if not predicted:
        return f"target {target_tok_s:g} tok/s per stream: no option could be predicted"
    met = [o for o in predicted if o.meets_target]
    if met:
        return (f"target {target_tok_s:g} tok/s per stream: met by {len(met)} option(s); best "
                f"{met[0].label} at {met[0].prediction.tok_s_per_stream:.1f} tok/s")  # type: ignore[union-attr]
    best = max(predicted, key=lambda o: o.prediction.tok_s_per_stream)  # type: ignore[union-attr]
    tok_s = best.prediction.tok_s_per_stream  # type: ignore[union-attr]
    return (f"target {target_tok_s:g} tok/s per stream: NOT met by any option; best {best.label} at "
            f"{tok_s:.1f} tok/s ({target_tok_s / tok_s:.2f}x short)")


__all__ = ["DEFAULT_ALPHA", "FORMAT_CAVEAT", "Option", "advise", "explain", "target_verdict"]
