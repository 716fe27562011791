"""duplicates.same-measurement: which differences make two arms the same measurement, and an update for one
changed benchmark builds no schema model's serializer but the Benchmark's (audit/checks/duplicates_records.py)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchledger.audit import run_audit
from benchledger.ledger import Ledger

from ledger_builder import benchmark, reference_records, source, write_all

CODE = "duplicates.same-measurement"


def _pair(tmp_path: Path, change: Callable[[dict[str, Any]], None]) -> list[tuple[str, str]]:
    """The duplicate findings (record, field) of a ledger holding ``benchmark`` and a copy changed by ``change``."""
    other = copy.deepcopy(benchmark("two"))
    change(other)
    root = write_all(tmp_path / "ledger", [source(), *reference_records(), benchmark("one"), other])
    return sorted((f.record, f.field) for f in run_audit(Ledger.load(root)).findings if f.code == CODE)


def _host(data: dict[str, Any]) -> None:
    data["subject"]["host"] = {"value": "node-7", "note": "another machine of the same kind"}


def _result_note(data: dict[str, Any]) -> None:
    data["arms"][0]["results"][0]["note"] = "read off the table"


def _arm_concurrency(data: dict[str, Any]) -> None:
    data["arms"][1]["workload"] = {"concurrency": {"value": 4, "quote": "concurrency 4"}}


def _draft_length(data: dict[str, Any]) -> None:
    data["arms"][1]["speculative"]["k"] = {"value": 3, "quote": "`num_speculative_tokens = 3`"}


def _record_workload(data: dict[str, Any]) -> None:
    data["workload"]["output_tokens"] = {"value": 2000, "quote": "output 2K tokens"}


@pytest.mark.parametrize("change", [_host, _result_note])
def test_what_leaves_two_arms_the_same_measurement(tmp_path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    assert _pair(tmp_path, change) == [("two", "arms.base"), ("two", "arms.mtp4")]


def test_an_arms_own_conditions_tell_it_apart(tmp_path: Path) -> None:
    assert _pair(tmp_path, _arm_concurrency) == [("two", "arms.base")]
    assert _pair(tmp_path / "k", _draft_length) == [("two", "arms.base")]


def test_the_records_conditions_tell_both_arms_apart(tmp_path: Path) -> None:
    assert _pair(tmp_path, _record_workload) == []


FRESH_PROCESS = """
import json, sys
from pathlib import Path
from pydantic import BaseModel
from benchledger.catalog.cache import open_index

path = Path(sys.argv[1]) / "benchmarks" / "one.md"
path.write_text(path.read_text(encoding="utf-8").replace("title: Test experiment", "title: Edited", 1), encoding="utf-8")
status = open_index(sys.argv[1]).status
found, pending = set(), [BaseModel]
while pending:
    for cls in pending.pop().__subclasses__():
        pending.append(cls)
        if cls.__module__.startswith("benchledger.") and cls.__pydantic_complete__:
            found.add(cls.__name__)
print(json.dumps({"status": status, "built": sorted(found)}))
"""


def test_an_update_for_one_changed_benchmark_builds_only_the_benchmark_models_serializer(tmp_path: Path) -> None:
    """Schema models build their validator and serializer on first use (``defer_build``); an update for one
    changed benchmark needs the Benchmark model's alone (the duplicates facts built each part's: ~17 ms)."""
    from benchledger.catalog.cache import open_index

    root = write_all(tmp_path / "ledger", [source(), *reference_records(), benchmark("one")])
    open_index(root).close()  # (the cache the update starts from)
    out = subprocess.run([sys.executable, "-c", FRESH_PROCESS, str(root)], capture_output=True, text=True,
                         check=True, timeout=300)
    seen = json.loads(out.stdout)
    assert seen["status"].startswith("updated 1 of"), seen["status"]
    assert seen["built"] == ["Benchmark"]
