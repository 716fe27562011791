"""``sweep run --record`` refuses, before anything runs, ledger ids the ledger does not hold as that kind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchledger.errors import SweepError
from benchledger.sweep.collect import check_ledger_ids
from benchledger.sweep.plan import build_plan
from benchledger.sweep.spec import parse_sweep


def plan(ids: dict[str, Any], references: str = "none") -> Any:
    return build_plan(parse_sweep({
        "name": "ids", "references": references,
        "servers": {"s": {"launch": "serve --port {port}", "ledger": ids}},
        "matrix": {"axes": {"weights": ["fp8-e4m3"]}},
        "client": {"concurrency": [1]},
    }), "/tmp")


def test_ids_the_ledger_holds_pass(mini_ledger: Path) -> None:
    check_ledger_ids(plan({"model": "test-model", "engine": "test-engine", "accelerator": "test-card",
                           "weights": "{weights}"}), mini_ledger)


@pytest.mark.parametrize(("ids", "message"), [
    ({"model": "no-such-model", "engine": "test-engine", "accelerator": "test-card"},
     "ledger.model 'no-such-model': no such record"),
    ({"model": "test-model", "engine": "test-card", "accelerator": "test-card"},
     "ledger.engine 'test-card': that record is of kind accelerator, not engine"),
    ({"model": "test-model", "engine": "test-engine", "accelerator": "test-card", "weights": "{weights}-x"},
     "ledger.weights 'fp8-e4m3-x': no such record"),
])
def test_unknown_or_wrong_kind_ids_are_refused(mini_ledger: Path, ids: dict[str, Any], message: str) -> None:
    with pytest.raises(SweepError, match=message):
        check_ledger_ids(plan(ids), mini_ledger)


def test_demo_ids_pass_when_the_file_writes_them(mini_ledger: Path) -> None:
    demo = {"model": "tiny-llama-random", "engine": "llama-cpp", "accelerator": "cpu-host", "weights": "f32"}
    check_ledger_ids(plan(demo, references="demo"), mini_ledger)
    with pytest.raises(SweepError, match="tiny-llama-random"):
        check_ledger_ids(plan(demo), mini_ledger)
