"""A TPOT result is compared with the ceiling in ms whatever time unit it is written in (MLPerf logs write ns)."""

from __future__ import annotations

import pytest

from benchledger.perfmodel.ceiling import Ceiling, result_efficiency
from benchledger.schema import Result

CEILING = Ceiling(tok_s_per_stream=100.0, aggregate_tok_s=None, tpot_ms=10.0, step_ms=10.0, query_tokens=1)


@pytest.mark.parametrize(("value", "unit"), [(20.0, "ms"), (0.02, "s"), (20000.0, "us"), (20000000, "ns")])
def test_tpot_efficiency_is_unit_independent(value: float, unit: str) -> None:
    result = Result(metric="tpot", stat="p99", value=value, unit=unit, provenance="quoted", quote=f"{value} {unit}",
                    source="s")
    found = result_efficiency(CEILING, result)
    assert found is not None and found[0] == pytest.approx(50.0)
