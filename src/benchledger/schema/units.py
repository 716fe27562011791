"""Units: every unit a ``Quantity`` may carry, its dimension and scale, and the spellings sources print.

One registry serves the schema (a value's unit must be registered, and a result's unit must fit its metric)
and the audit's number matcher (a quoted ``1.578 s`` is 1578 in ``ms`` because both are ``time``; a quoted
``94.9%`` is 0.949 as a ``fraction`` because both are ``ratio``). Two units convert only when they share a
dimension; nothing else ever rescales a number. Peak compute is one dimension, operations per second: an INT8
peak printed as ``1.01 POPS`` is 1010 ``TOPS`` or ``TFLOP/s``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class UnitInfo:
    """A unit: its dimension and the factor that takes a value in it to the dimension's base unit."""

    name: str
    dimension: str
    scale: float = 1.0


UNITS: dict[str, UnitInfo] = {
    u.name: u
    for u in (
        UnitInfo("s", "time"), UnitInfo("ms", "time", 1e-3), UnitInfo("us", "time", 1e-6),
        UnitInfo("ns", "time", 1e-9),
        UnitInfo("ms per draft step", "time", 1e-3),
        UnitInfo("tok/s", "token-rate"), UnitInfo("tok/s/user", "token-rate"),
        UnitInfo("req/s", "request-rate"),
        UnitInfo("%", "ratio", 1e-2), UnitInfo("fraction", "ratio"),
        UnitInfo("fraction of peak compute", "ratio"), UnitInfo("fraction of peak bandwidth", "ratio"),
        UnitInfo("factor", "factor"),
        UnitInfo("tokens", "tokens"), UnitInfo("requests", "requests"),
        UnitInfo("MB/s", "bandwidth", 1e6), UnitInfo("GB/s", "bandwidth", 1e9), UnitInfo("TB/s", "bandwidth", 1e12),
        UnitInfo("bytes", "bytes"), UnitInfo("MB", "bytes", 1e6), UnitInfo("MiB", "bytes", 2.0**20),
        UnitInfo("GB", "bytes", 1e9), UnitInfo("GiB", "bytes", 2.0**30), UnitInfo("TB", "bytes", 1e12),
        UnitInfo("bits", "bits"),
        UnitInfo("GFLOP/s", "compute", 1e9), UnitInfo("TFLOP/s", "compute", 1e12),
        UnitInfo("PFLOP/s", "compute", 1e15), UnitInfo("TOPS", "compute", 1e12), UnitInfo("POPS", "compute", 1e15),
        UnitInfo("W", "power"), UnitInfo("J/token", "energy-per-token"),
        UnitInfo("B", "params", 1e9), UnitInfo("count", "count"), UnitInfo("heads", "heads"),
        UnitInfo("layers", "layers"), UnitInfo("experts", "experts"),
    )
}
"""Every unit a Quantity may carry. A unit not listed here is a schema error."""

QUOTE_SPELLINGS: dict[str, str] = {
    **{s: "s" for s in ("s", "sec", "secs", "second", "seconds")},
    **{s: "ms" for s in ("ms", "msec", "millisecond", "milliseconds")},
    **{s: "us" for s in ("us", "µs", "μs", "microseconds")},
    **{s: "ns" for s in ("ns", "nanoseconds")},
    **{s: "tok/s" for s in ("tok/s", "tokens/s", "token/s", "tok/sec", "tokens/sec", "t/s", "tokens per second")},
    "tok/s/user": "tok/s/user",
    "req/s": "req/s",
    **{s: "%" for s in ("%", "percent")},
    **{s: "MB/s" for s in ("MB/s", "MBps")},
    **{s: "GB/s" for s in ("GB/s", "GBps")},
    **{s: "TB/s" for s in ("TB/s", "TBps")},
    **{s: s for s in ("MB", "MiB", "GB", "GiB", "TB")},
    **{s: "GFLOP/s" for s in ("GFLOP/s", "GFLOPS", "GFLOPs")},
    **{s: "TFLOP/s" for s in ("TFLOP/s", "TFLOPS", "TFLOPs", "TFlops")},
    **{s: "PFLOP/s" for s in ("PFLOP/s", "PFLOPS", "PFLOPs")},
    "TOPS": "TOPS",
    "POPS": "POPS",
    **{s: "W" for s in ("W", "watts")},
    **{s: "B" for s in ("B", "billion")},
}
"""How sources print a unit right after a number → the registered unit it means."""


def conversion(from_unit: str, to_unit: str) -> float | None:
    """Factor taking a value in ``from_unit`` to ``to_unit``; None when they are not the same dimension."""
    a, b = UNITS.get(from_unit), UNITS.get(to_unit)
    if a is None or b is None or a.dimension != b.dimension:
        return None
    return a.scale / b.scale


__all__ = ["QUOTE_SPELLINGS", "UNITS", "UnitInfo", "conversion"]
