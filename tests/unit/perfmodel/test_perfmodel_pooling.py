"""A pooled fit's arm weights (``perfmodel/pooling.py``): a campaign weighs more the more arms it gives, towards a
fixed total, so a one-arm campaign no longer weighs as much as a thirty-arm one, nor does the thirty-arm one
stand for the level by count."""

from __future__ import annotations

import itertools
import math

import pytest

from benchledger.perfmodel.pooling import SPREAD_RATIO, campaign_weights


def _campaign(ref: str) -> str:
    return ref.split("#")[0]


def _arms(sizes: dict[str, int]) -> list[str]:
    return [f"{c}#{i}" for c, n in sizes.items() for i in range(n)]


def _totals(arms: list[str], ratio: float = SPREAD_RATIO) -> dict[str, float]:
    out: dict[str, float] = {}
    for ref, w in zip(arms, campaign_weights(arms, _campaign, ratio), strict=True):
        out[_campaign(ref)] = out.get(_campaign(ref), 0.0) + w
    return out


def test_a_one_arm_campaign_weighs_less_than_a_thirty_arm_one() -> None:
    totals = _totals(_arms({"one": 1, "thirty": 30}))
    assert totals["one"] < totals["thirty"]
    assert totals["thirty"] < 2.0 * totals["one"]  # ... but not thirty times less: no campaign wins by count


def test_two_campaigns_of_equal_size_weigh_the_same() -> None:
    totals = _totals(_arms({"a": 4, "b": 4, "c": 1}))
    assert totals["a"] == totals["b"]


def test_a_campaign_tends_to_a_fixed_total_as_its_arms_grow() -> None:
    """Total ``n / (n + σ²/τ²)``: rises with every arm, never past 1 (``1/τ²`` in units of ``τ²``)."""
    totals = [_totals(_arms({"c": n}))["c"] for n in (1, 2, 3, 10, 30, 1000)]
    assert all(a < b < 1.0 for a, b in itertools.pairwise(totals))
    assert math.isclose(totals[0], 1.0 / (1.0 + SPREAD_RATIO))
    assert totals[-1] > 0.99


def test_each_arm_weighs_the_inverse_of_its_campaign_mean_variance() -> None:
    """``1 / (n_c·τ² + σ²)`` with τ² = 1: σ²/τ² = 0 weighs every campaign alike (the old rule), σ²/τ² → ∞
    every arm alike (an unweighted fit): the two limits the random-effects weight lies between."""
    arms = _arms({"a": 3, "b": 1})
    assert campaign_weights(arms, _campaign, 2.0) == pytest.approx([1 / 5, 1 / 5, 1 / 5, 1 / 3])
    assert _totals(arms, 0.0) == pytest.approx({"a": 1.0, "b": 1.0})
    big = campaign_weights(arms, _campaign, 1e9)
    assert max(big) / min(big) == pytest.approx(1.0, rel=1e-6)


def test_one_campaign_weighs_its_arms_alike() -> None:
    """So a normalised loss over one campaign's arms is that of an unweighted fit."""
    assert len(set(campaign_weights(_arms({"only": 5}), _campaign))) == 1
