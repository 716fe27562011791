"""Pure load schedules."""

from __future__ import annotations

import itertools
import statistics

import pytest

from benchledger.bench.load import (
    LoadPoint,
    arm_order,
    arrival_offsets,
    default_round_size,
    parse_load_points,
    plan_rounds,
)


def test_rounds_cover_every_prompt_once() -> None:
    rounds = plan_rounds(10, 4)
    assert [r.prompts for r in rounds] == [(0, 1, 2, 3), (4, 5, 6, 7), (8, 9)]
    assert [r.index for r in rounds] == [0, 1, 2]


def test_rounds_offset_and_validation() -> None:
    assert plan_rounds(2, 5, first_prompt=7)[0].prompts == (7, 8)
    with pytest.raises(ValueError):
        plan_rounds(3, 0)


def test_round_size_is_whole_waves() -> None:
    size = default_round_size(LoadPoint(concurrency=4), 100)
    assert size % 4 == 0 and size >= 4
    assert len(plan_rounds(100, size)) >= 6


def test_arms_interleave_in_declared_order() -> None:
    assert [arm_order(["a", "b"], r) for r in range(3)] == [["a", "b"]] * 3


def test_constant_arrivals() -> None:
    assert arrival_offsets(4, 2.0, "constant", seed=1) == [0.0, 0.5, 1.0, 1.5]


def test_poisson_arrivals_seeded_and_rate() -> None:
    a = arrival_offsets(2000, 5.0, "poisson", seed=3)
    assert a == arrival_offsets(2000, 5.0, "poisson", seed=3)
    assert a != arrival_offsets(2000, 5.0, "poisson", seed=4)
    gaps = [y - x for x, y in itertools.pairwise(a)]
    assert all(g >= 0 for g in gaps)
    assert statistics.mean(gaps) == pytest.approx(0.2, rel=0.1)


def test_load_points() -> None:
    points = parse_load_points([1, 4], [2.5], "constant")
    assert [p.label for p in points] == ["conc-1", "conc-4", "rate-2.5"]
    assert points[2].in_flight is None and points[1].in_flight == 4
    with pytest.raises(ValueError):
        parse_load_points([], [], "poisson")
    with pytest.raises(ValueError):
        LoadPoint(concurrency=1, rate=1.0)
    with pytest.raises(ValueError):
        LoadPoint(concurrency=0)
