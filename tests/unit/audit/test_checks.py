"""Each audit check passes on a valid ledger and fails on a record made wrong in the way it guards against."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benchledger.audit import run_audit
from benchledger.ledger import Ledger

from ledger_builder import benchmark, reference_records, source, write_all


def codes(root: Path, severity: str = "error") -> set[str]:
    report = run_audit(Ledger.load(root))
    return {f.code for f in report.findings if f.severity == severity and not f.waived}


def test_valid_ledger_has_no_errors(mini_ledger: Path) -> None:
    report = run_audit(Ledger.load(mini_ledger))
    assert report.errors == [], report.to_json()
    assert report.exit_code == 0


def _bench(mutate: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    data = copy.deepcopy(benchmark())
    mutate(data)
    return data


def _set_result(index: int, value: float) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        data["arms"][1]["results"][index]["value"] = value
    return mutate


CASES: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "changed number": (_set_result(1, 24.6), "provenance.number-not-in-quote"),
    "quote not in source": (
        lambda d: d["arms"][0]["results"][1].update(quote="| baseline (no MTP) | 1380.8 | 19.13 | +3% |"),
        "provenance.quote-not-in-source"),
    "missing condition": (lambda d: d["workload"].pop("warmup"), "conditions.missing-without-reason"),
    "dangling reference": (lambda d: d["subject"].update(model="no-such-model"), "references.dangling"),
    "spec arm without baseline": (lambda d: d["arms"][1].pop("baseline"), "arms.spec-without-baseline"),
    "baseline not found": (lambda d: d["arms"][1].update(baseline="nope"), "arms.baseline-not-found"),
    "quoted change disagrees": (
        lambda d: d["arms"][0]["results"][1].update(value=1380.8, quote="| baseline (no MTP) | 1380.8 | 19.13 | - |"),
        "provenance.quoted-change-mismatch"),
    "dangling format": (lambda d: d["subject"].update(weights="fp9"), "references.dangling"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_check_catches(case: str, tmp_path: Path) -> None:
    mutate, expected = CASES[case]
    root = write_all(tmp_path / "ledger", [source(), *reference_records(), _bench(mutate)])
    assert expected in codes(root)


def test_quoted_change_within_rounding_passes(mini_ledger: Path) -> None:
    # 24.06 / 19.13 = 1.25771… → +25.77 %, the source prints +25.8 %
    assert "provenance.quoted-change-mismatch" not in codes(mini_ledger)


def test_source_hash_mismatch(tmp_path: Path) -> None:
    bad = source()
    bad["sha256"] = "0" * 64
    root = write_all(tmp_path / "ledger", [bad, *reference_records(), benchmark()])
    assert "provenance.source-hash-mismatch" in codes(root)


def test_duplicate_records(tmp_path: Path) -> None:
    root = write_all(tmp_path / "ledger", [source(), *reference_records(), benchmark("one"), benchmark("two")])
    assert "duplicates.same-measurement" in codes(root)


def test_bad_yaml_is_a_schema_finding_with_line(mini_ledger: Path) -> None:
    path = mini_ledger / "benchmarks" / "test-bench.md"
    lines = path.read_text().splitlines(keepends=True)
    lines[4] = "measured_by: [unclosed\n"
    path.write_text("".join(lines))
    report = run_audit(Ledger.load(mini_ledger))
    found = [f for f in report.findings if f.code == "schema.invalid"]
    assert found and f"{path}:" in found[0].message
    assert found[0].message.split(":")[1].isdigit()


def test_measured_value_needs_its_run(tmp_path: Path) -> None:
    data = benchmark()
    data["arms"][0]["results"].append({"value": 5.0, "unit": "ms", "provenance": "measured", "metric": "tpot",
                                       "stat": "median", "run": "runs/r1", "sha256": "a" * 64})
    root = write_all(tmp_path / "ledger", [source(), *reference_records(), data])
    assert "provenance.run-missing" in codes(root)
    (root / "runs" / "r1").mkdir(parents=True)
    (root / "runs" / "r1" / "requests.jsonl").write_text("{}\n")
    assert "provenance.run-hash-mismatch" in codes(root)


def test_waiver_marks_finding_and_needs_reason(tmp_path: Path) -> None:
    root = write_all(tmp_path / "ledger", [source(), *reference_records(), _bench(_set_result(0, 2820.9))])
    (root / "waivers.yaml").write_text(
        "- code: provenance.number-not-in-quote\n  record: test-bench\n"
        "  reason: the source's table rounds differently in its text\n  date: 2026-11-29\n")
    report = run_audit(Ledger.load(root))
    assert report.exit_code == 0
    assert any(f.waived and f.code == "provenance.number-not-in-quote" for f in report.findings)
    (root / "waivers.yaml").write_text(
        "- code: provenance.number-not-in-quote\n  record: test-bench\n  reason: ''\n  date: 2026-11-29\n")
    assert "waivers.invalid" in codes(root)


def test_contested_must_link(tmp_path: Path) -> None:
    data = benchmark()
    data["status"] = "contested"
    root = write_all(tmp_path / "ledger", [source(), *reference_records(), data])
    assert "contested.unlinked" in codes(root, "warning")


def test_secret_in_a_record_is_an_error(tmp_path: Path) -> None:
    data = benchmark()
    data["body"] = "server started with --api-key sk-proj-AbCdEfGhIjKlMnOpQrStUv123\n"
    root = write_all(tmp_path / "ledger", [source(), *reference_records(), data])
    assert "secrets.suspected" in codes(root)


def test_record_without_history_is_flagged(tmp_path: Path) -> None:
    data = benchmark()
    data["history"] = []
    root = write_all(tmp_path / "ledger", [source(), *reference_records(), data])
    assert "history.missing" in codes(root, "warning")
