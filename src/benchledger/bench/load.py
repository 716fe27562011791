"""Load schedules as pure functions: rounds of paired prompts, open-loop arrival times.

A run is a list of load points (one per concurrency or rate). Each point is split into *rounds*; in every round
each arm, in turn, serves the same prompts (A B A B …), so drift over time hits all arms alike and the rounds are
the paired units of the bootstrap. Closed loop: at most ``concurrency`` requests in flight. Open loop: requests
sent at the arrival offsets from ``arrival_offsets`` (Poisson with a seeded generator, or constant).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Literal

Arrival = Literal["poisson", "constant"]


@dataclass(frozen=True)
class LoadPoint:
    """One point of a sweep: closed-loop ``concurrency`` or open-loop ``rate`` (req/s)."""

    concurrency: int | None = None
    rate: float | None = None
    arrival: Arrival = "poisson"

    def __post_init__(self) -> None:
        if (self.concurrency is None) == (self.rate is None):
            raise ValueError("a load point has exactly one of concurrency or rate")
        if self.concurrency is not None and self.concurrency < 1:
            raise ValueError("concurrency must be ≥ 1")
        if self.rate is not None and not self.rate > 0:
            raise ValueError("request rate must be > 0")

    @property
    def label(self) -> str:
        """Folder-safe name: ``conc-4`` or ``rate-2.5``."""
        if self.concurrency is not None:
            return f"conc-{self.concurrency}"
        return f"rate-{self.rate:g}"

    @property
    def in_flight(self) -> int | None:
        """The closed-loop cap (None: open loop, no cap)."""
        return self.concurrency


@dataclass(frozen=True)
class Round:
    """One round: its index and the prompt indices every arm serves in it."""

    index: int
    prompts: tuple[int, ...]


def plan_rounds(num_prompts: int, round_size: int, first_prompt: int = 0) -> list[Round]:
    """Split ``num_prompts`` measured prompts (indices from ``first_prompt``) into rounds of ``round_size``."""
    if num_prompts < 0 or round_size < 1:
        raise ValueError("num_prompts must be ≥ 0 and round_size ≥ 1")
    rounds = []
    for i, start in enumerate(range(0, num_prompts, round_size)):
        stop = min(start + round_size, num_prompts)
        rounds.append(Round(index=i, prompts=tuple(range(first_prompt + start, first_prompt + stop))))
    return rounds


def default_round_size(point: LoadPoint, num_prompts: int, target_rounds: int = 8) -> int:
    """A round size that gives about ``target_rounds`` rounds, each a whole number of concurrency waves."""
    wave = point.concurrency or max(1, math.ceil(point.rate or 1.0))
    per_round = max(wave, math.ceil(num_prompts / target_rounds))
    return max(wave, wave * round(per_round / wave))


def arm_order(arms: list[str], round_index: int) -> list[str]:
    """The order arms serve a round in: always the declared order (A B, A B, …)."""
    del round_index
    return list(arms)


def arrival_offsets(n: int, rate: float, arrival: Arrival, seed: int) -> list[float]:
    """Send offsets (seconds from the start of a round) of ``n`` open-loop requests at ``rate`` req/s."""
    if n <= 0:
        return []
    if arrival == "constant":
        return [i / rate for i in range(n)]
    rng = random.Random(seed)
    t = 0.0
    out = [0.0]
    for _ in range(n - 1):
        t += rng.expovariate(rate)
        out.append(t)
    return out


def parse_load_points(concurrency: list[int], rates: list[float], arrival: Arrival) -> list[LoadPoint]:
    """Load points from the CLI lists; concurrency points first. At least one is required."""
    points = [LoadPoint(concurrency=c) for c in concurrency]
    points += [LoadPoint(rate=r, arrival=arrival) for r in rates]
    if not points:
        raise ValueError("give --concurrency or --request-rate")
    return points


__all__ = [
    "Arrival",
    "LoadPoint",
    "Round",
    "arm_order",
    "arrival_offsets",
    "default_round_size",
    "parse_load_points",
    "plan_rounds",
]
