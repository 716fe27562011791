"""How much each arm weighs in a fit that pools several campaigns (the hold-out fits of ``accuracy.py``, the
per-setup fits of ``calibrate.py`` and ``calibrate_prefill.py``).

A campaign's arms share a setup (build, flags, prompts, measuring script) that the model does not see, so their
errors are not independent: the campaign's mean error has variance ``τ² + σ²/n_c`` (``τ²`` between campaigns,
``σ²`` between the arms of one campaign, ``n_c`` the arms it gives the fit). Weighing each arm by the inverse of
that, ``1 / (n_c·τ² + σ²)`` (random-effects, partial pooling), makes a one-arm campaign weigh ``1 / (τ² + σ²)``
and a many-arm one tend to the fixed total ``1 / τ²``: a campaign counts more for giving more arms, but no
campaign stands for a level by sheer count.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

_T = TypeVar("_T")

SPREAD_RATIO = 1.0
"""``σ² / τ²``, fixed a priori (not estimated, not tuned). A level is fitted with as few as two campaigns
(``accuracy.MIN_TRAINING_CAMPAIGNS``), so an estimate of ``τ²`` from its campaign means rests on one or two degrees
of freedom and would swing from fold to fold between 0 (every arm alike) and many times ``σ²`` (every campaign
alike); and nothing in this repository tells the two spreads apart before scoring — the fits state one error
scale for any arm, whatever its cause (``fitting.ROBUST_SCALE``). Equal spreads is the neutral choice: a campaign
of ``n`` arms weighs ``n / (n + 1)`` of a campaign with unboundedly many (one arm ½, three ¾, thirty 0.97)."""


def campaign_weights(train: list[_T], campaign_of: Callable[[_T], str],
                     spread_ratio: float = SPREAD_RATIO) -> list[float]:
    """Per arm ``1 / (n_c + σ²/τ²)`` (∝ ``1 / (n_c·τ² + σ²)``; ``n_c`` its campaign's arms in ``train``). Only
    ``train`` counts: a campaign held out of a fit is not passed, so it moves no weight. With one campaign every
    arm weighs the same, so a normalised loss is that of an unweighted fit."""
    sizes: dict[str, int] = {}
    for o in train:
        sizes[campaign_of(o)] = sizes.get(campaign_of(o), 0) + 1
    return [1.0 / (sizes[campaign_of(o)] + spread_ratio) for o in train]


__all__ = ["SPREAD_RATIO", "campaign_weights"]
