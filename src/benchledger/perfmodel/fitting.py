"""A small bounded Nelder–Mead minimiser (pure Python; the model has a handful of parameters) and the robust loss
the fits minimise."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

ROBUST_SCALE = 0.2
"""Soft-L1 scale of the fit's loss on log errors: an arm off by more than ~20 % weighs linearly, not squared, so one
arm whose physics the model lacks (a kernel switch, a queue) does not drag the parameters of all the others."""


def soft_l1(error: float, scale: float = ROBUST_SCALE) -> float:
    """``2s²(√(1 + (e/s)²) − 1)``: ≈ e² for |e| ≪ s, ≈ 2s·|e| for |e| ≫ s."""
    return 2.0 * scale * scale * (math.sqrt(1.0 + (error / scale) ** 2) - 1.0)


def nelder_mead(
    f: Callable[[list[float]], float], start: Sequence[float], step: float = 0.3, iterations: int = 400,
    tolerance: float = 1e-9,
) -> tuple[list[float], float]:
    """Minimise ``f`` from ``start``; returns (best point, best value)."""
    n = len(start)
    simplex = [list(start)]
    for i in range(n):
        point = list(start)
        point[i] += step
        simplex.append(point)
    values = [f(p) for p in simplex]
    for _ in range(iterations):
        order = sorted(range(n + 1), key=values.__getitem__)
        simplex = [simplex[i] for i in order]
        values = [values[i] for i in order]
        if abs(values[-1] - values[0]) < tolerance:
            break
        centroid = [sum(p[j] for p in simplex[:-1]) / n for j in range(n)]
        worst = simplex[-1]
        reflected = [c + (c - w) for c, w in zip(centroid, worst, strict=True)]
        fr = f(reflected)
        if fr < values[0]:
            expanded = [c + 2.0 * (c - w) for c, w in zip(centroid, worst, strict=True)]
            fe = f(expanded)
            simplex[-1], values[-1] = (expanded, fe) if fe < fr else (reflected, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = reflected, fr
        else:
            contracted = [c + 0.5 * (w - c) for c, w in zip(centroid, worst, strict=True)]
            fc = f(contracted)
            if fc < values[-1]:
                simplex[-1], values[-1] = contracted, fc
            else:
                best = simplex[0]
                simplex = [best] + [[b + 0.5 * (p - b) for b, p in zip(best, q, strict=True)] for q in simplex[1:]]
                values = [values[0]] + [f(p) for p in simplex[1:]]
    best_index = min(range(n + 1), key=values.__getitem__)
    return simplex[best_index], values[best_index]


__all__ = ["ROBUST_SCALE", "nelder_mead", "soft_l1"]
