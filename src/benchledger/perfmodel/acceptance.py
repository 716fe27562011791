"""Evidence-first acceptance: what the ledger measured for a model + speculative method + k.

``measured_acceptance`` collects every arm of the ledger with that model and method whose acceptance is known
(mean length, per-position rates or a rate) and keeps the nearest ones: the same k first (a deeper arm's
per-position rates truncated to k come next: ``AL_k = 1 + Σ_{i≤k} r_i`` holds for chain drafting), then the
nearest context (|log ratio|), then the nearest temperature (unknown counts as far). Arms at another k are
converted through an i.i.d. acceptance ``α`` solved from their AL (stated). Callers get the arms used and why;
``None`` means the ledger has nothing for that model + method and the caller's stated default applies.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

from benchledger.ledger.store import Ledger
from benchledger.perfmodel.inputs import arm_context, number
from benchledger.schema import Arm, Benchmark, Quantity, effective_subject, effective_workload

UNKNOWN_TEMPERATURE_DISTANCE = 1.0
"""Temperature distance of an arm whose temperature is unknown (0.0 vs 1.0 is the usual greedy/sampled span)."""
UNKNOWN_CONTEXT_DISTANCE = 10.0
"""Context distance (|log ratio|) of an arm whose context is unknown: farther than any stated one."""


@dataclass(frozen=True)
class MeasuredArm:
    """One arm whose acceptance was measured, converted to the asked k."""

    ref: str
    k: int
    context: float | None
    temperature: float | None
    acceptance_length: float
    """AL at the asked k (converted when the arm ran another k)."""
    how: str
    """'same k', 'per-position rates truncated from k=…', or 'i.i.d. α from AL … at k=…'."""

    def describe(self) -> str:
        ctx = "?" if self.context is None else f"{self.context:g}"
        temp = "?" if self.temperature is None else f"{self.temperature:g}"
        return f"{self.ref} (k={self.k}, context {ctx}, temperature {temp}: AL {self.acceptance_length:.2f}, {self.how})"


@dataclass(frozen=True)
class AcceptanceEvidence:
    """The acceptance to use and the arms behind it."""

    k: int
    arms: tuple[MeasuredArm, ...]
    why: str

    @property
    def values(self) -> list[float]:
        return [a.acceptance_length for a in self.arms]

    @property
    def central(self) -> float:
        """Median AL of the nearest arms."""
        return float(statistics.median(self.values))

    @property
    def low(self) -> MeasuredArm:
        return min(self.arms, key=lambda a: a.acceptance_length)

    @property
    def high(self) -> MeasuredArm:
        return max(self.arms, key=lambda a: a.acceptance_length)


DEFAULT_ALPHA = 0.7
"""Default i.i.d. per-draft acceptance, used only when neither the caller nor the ledger gives one (r_i = α^i)."""


@dataclass(frozen=True)
class AcceptanceChoice:
    """The acceptance one k is predicted at (``al``) and, from measured arms, the lowest and highest seen."""

    k: int
    al: float
    origin: str
    rates: tuple[float, ...] = ()
    low: tuple[float, str] | None = None
    """(AL, arm ref) of the lowest measured acceptance among the nearest arms."""
    high: tuple[float, str] | None = None

    def to_json(self) -> dict[str, object]:
        return {"k": self.k, "acceptance_length": round(self.al, 4), "origin": self.origin,
                "low": None if self.low is None else {"acceptance_length": self.low[0], "arm": self.low[1]},
                "high": None if self.high is None else {"acceptance_length": self.high[0], "arm": self.high[1]}}


def _fraction(q: Quantity) -> float:
    v = float(q.value)
    return v / 100.0 if q.unit.strip() == "%" or v > 1.0 else v


def iid_alpha(al: float, k: int) -> float:
    """α with ``(1 − α^{k+1}) / (1 − α) = AL`` (bisection; AL in [1, k+1])."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        value = sum(mid**i for i in range(k + 1))
        lo, hi = (mid, hi) if value < al else (lo, mid)
    return (lo + hi) / 2


def _at_k(arm: Arm, arm_k: int, k: int) -> tuple[float, str, int] | None:
    """(AL at k, how, preference rank) for one arm's acceptance; None when it states none."""
    acc = arm.acceptance
    if acc is None:
        return None
    rates = [_fraction(q) for q in acc.per_position]
    al: float | None = None
    if acc.mean_length is not None:
        al = min(max(float(acc.mean_length.value), 1.0), arm_k + 1)
    elif len(rates) >= arm_k:
        al = 1.0 + sum(rates[:arm_k])
    elif acc.rate is not None:
        al = 1.0 + arm_k * _fraction(acc.rate)
    if arm_k == k and al is not None:
        return al, "same k", 0
    if len(rates) >= k:
        return 1.0 + sum(rates[:k]), f"per-position rates truncated from k={arm_k}", 1
    if al is None:
        return None
    alpha = iid_alpha(al, arm_k)
    return iid_length(alpha, k), f"i.i.d. α={alpha:.3f} from AL {al:.2f} at k={arm_k}", 2


def measured_acceptance(
    ledger: Ledger, *, model: str, method: str, k: int, context: float | None, temperature: float | None = None,
    exclude: Iterable[str] = (),
) -> AcceptanceEvidence | None:
    """The nearest measured acceptance for ``model`` + ``method`` at ``k`` (records in ``exclude`` left out)."""
    skip = set(exclude)
    found: list[tuple[tuple[float, ...], MeasuredArm]] = []
    for record in ledger.typed("benchmark", Benchmark):
        if record.id in skip:
            continue
        for arm in record.arms:
            spec = arm.speculative
            if spec is None or spec.method != method or effective_subject(record, arm).model != model:
                continue
            arm_k = number(spec.k)
            if arm_k is None or arm_k < 1:
                continue
            converted = _at_k(arm, int(arm_k), k)
            if converted is None:
                continue
            al, how, rank = converted
            ctx = arm_context(record, arm)
            temp = number(effective_workload(record, arm).temperature)
            d_ctx = abs(math.log(ctx / context)) if ctx and context else UNKNOWN_CONTEXT_DISTANCE
            d_temp = (abs(temp - temperature) if temp is not None and temperature is not None
                      else 0.0 if temp is None and temperature is None else UNKNOWN_TEMPERATURE_DISTANCE)
            key = (float(rank), round(d_ctx, 1), round(d_temp, 2))
            found.append((key, MeasuredArm(f"{record.id}#{arm.name}", int(arm_k), ctx, temp, al, how)))
    if not found:
        return None
    best = min(key for key, _ in found)
    arms = tuple(sorted((a for key, a in found if key == best), key=lambda a: a.ref))
    ctx_text = "unknown" if context is None else f"{context:g}"
    why = (f"{len(arms)} arm(s) of {model} with {method}, nearest to k={k}, context {ctx_text}"
           f"{'' if temperature is None else f', temperature {temperature:g}'} ({arms[0].how}; "
           f"{len(found) - len(arms)} farther arm(s) not used)")
    return AcceptanceEvidence(k, arms, why)


def iid_length(alpha: float, k: int) -> float:
    """AL of i.i.d. acceptance α at k drafts: ``Σ_{i=0..k} α^i``."""
    return sum(alpha**i for i in range(k + 1))


def choose_acceptance(
    ledger: Ledger, *, model: str, method: str, k: int, context: float | None, temperature: float | None = None,
    rates: tuple[float, ...] = (), given_al: float | None = None, given_k: int | None = None,
) -> AcceptanceChoice | None:
    """The acceptance to predict k drafts at: the caller's rates (truncated to k) or AL (at ``given_k``, converted
    to other k through i.i.d. α), else the ledger's nearest measured arms (median, with the lowest and highest),
    else ``DEFAULT_ALPHA`` — each with its origin in words. None: the given rates are shorter than k."""
    if rates:
        if len(rates) < k:
            return None
        return AcceptanceChoice(k, 1.0 + sum(rates[:k]), "input (--acceptance, truncated to k)", rates[:k])
    if given_al is not None:
        ref_k = given_k or k
        if ref_k == k:
            return AcceptanceChoice(k, given_al, "input (--acceptance-length)")
        alpha = iid_alpha(given_al, ref_k)
        return AcceptanceChoice(k, iid_length(alpha, k),
                                f"input AL {given_al:g} at k={ref_k}, converted by i.i.d. α={alpha:.3f}")
    found = measured_acceptance(ledger, model=model, method=method, k=k, context=context, temperature=temperature)
    if found is None:
        return AcceptanceChoice(k, iid_length(DEFAULT_ALPHA, k),
                                f"default i.i.d. α={DEFAULT_ALPHA}: the ledger has no measured acceptance for "
                                f"{model} with {method}")
    low, high = found.low, found.high
    origin = f"ledger: median of {found.why}: " + "; ".join(a.describe() for a in found.arms)
    return AcceptanceChoice(k, found.central, origin, low=(low.acceptance_length, low.ref),
                            high=(high.acceptance_length, high.ref))


__all__ = ["DEFAULT_ALPHA", "AcceptanceChoice", "AcceptanceEvidence", "MeasuredArm", "choose_acceptance", "iid_alpha",
           "iid_length", "measured_acceptance"]
