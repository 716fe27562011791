"""The one name of each ceiling, shared by ``predict``, ``show`` (the ``efficiency`` view) and the site.

``ceiling.py`` bounds a measured arm with no draft cost; ``predict.py`` gives the ideal (η = 1) rate of a
configuration with its draft cost. Both name their bounds here.
"""

from __future__ import annotations

NA_CONCURRENCY_UNKNOWN = "n/a (concurrency unknown)"
"""Shown instead of an efficiency against the compute-only aggregate bound of an arm of unknown concurrency."""
BOUND_NAMES: dict[str, str] = {"output_throughput": "aggregate bound", "per_stream_throughput": "per-stream bound",
                               "tpot": "TPOT floor"}


def bound_name(metric: str, *, draft_cost: bool | None) -> str:
    """The one name of a ceiling, the same in ``predict``, ``show`` and the site.

    ``aggregate bound`` (output tok/s of all streams), ``per-stream bound`` (tok/s of one stream), ``TPOT floor``;
    for speculative decoding ``(with draft cost)`` or ``(no draft cost)`` (``draft_cost`` None: no speculation).
    """
    name = BOUND_NAMES[metric]
    if draft_cost is None:
        return name
    return f"{name} ({'with' if draft_cost else 'no'} draft cost)"


__all__ = ["BOUND_NAMES", "NA_CONCURRENCY_UNKNOWN", "bound_name"]
