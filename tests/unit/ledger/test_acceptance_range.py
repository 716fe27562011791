"""An acceptance length the source gives only as a range is recorded as one (mean_length_min/_max)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from benchledger.schema import Benchmark
from benchledger.schema.benchmark import Acceptance
from benchledger.schema.walk import walk_evidence

QUOTE = "accept-len is preserved (27B 2.6–3.0)"


def _length(value: float) -> dict[str, Any]:
    return {"value": value, "unit": "tokens", "provenance": "quoted", "quote": QUOTE}


def test_range_is_a_stated_acceptance() -> None:
    acc = Acceptance.model_validate({"mean_length_min": _length(2.6), "mean_length_max": _length(3.0),
                                     "definition": "source-text"})
    assert (acc.mean_length_min and acc.mean_length_min.value, acc.mean_length_max and acc.mean_length_max.value) \
        == (2.6, 3.0)
    assert acc.mean_length is None


@pytest.mark.parametrize(("fields", "message"), [
    ({"mean_length_min": _length(2.6)}, "needs both"),
    ({"mean_length_max": _length(3.0)}, "needs both"),
    ({"mean_length_min": _length(3.0), "mean_length_max": _length(2.6)}, "is above"),
    ({"mean_length": _length(2.8), "mean_length_min": _length(2.6), "mean_length_max": _length(3.0)}, "not both"),
])
def test_half_or_inverted_or_doubled_range_is_rejected(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Acceptance.model_validate({**fields, "definition": "source-text"})


def test_range_needs_its_definition() -> None:
    with pytest.raises(ValidationError, match="definition"):
        Acceptance.model_validate({"mean_length_min": _length(2.6), "mean_length_max": _length(3.0)})


def test_range_quotes_are_walked_as_evidence() -> None:
    """The audit finds range values through the evidence walk, like any other quoted number."""
    record = Benchmark.model_validate({
        "id": "b", "kind": "benchmark", "title": "t", "measured_by": "third-party",
        "subject": {"model": "m", "engine": "e", "accelerator": "a"}, "workload": {},
        "arms": [{"name": "mtp", "speculative": {"method": "mtp", "k": 2},
                  "acceptance": {"mean_length_min": _length(2.6), "mean_length_max": _length(3.0),
                                 "definition": "source-text"}}],
    })
    paths = {path for path, _ in walk_evidence(record)}
    assert {"arms.mtp.acceptance.mean_length_min", "arms.mtp.acceptance.mean_length_max"} <= paths
