"""Numbers in records are real, finite, in a unit that fits, with a sign that fits (issue 11).

Each case rewrites one line of the tiny ledger's benchmark file; the file must then fail to load with a
``RecordError`` that names that line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchledger.errors import RecordError
from benchledger.ledger import parse_record
from benchledger.schema import Condition, Known, Unknown, condition_parts, condition_value

THROUGHPUT = "  - value: 24.06\n    unit: tok/s\n"
TTFT = "  - value: 2820.8\n    unit: ms\n"
RATE = "      value: 94.9\n      unit: '%'\n"
MEAN_LENGTH = "      value: 4.79\n      unit: tokens\n"
PERCENT = "      value: 25.8\n      unit: '%'\n"

CASES: dict[str, tuple[str, str]] = {
    "string number": (THROUGHPUT, "  - value: '47.0'\n    unit: tok/s\n"),
    "boolean": (THROUGHPUT, "  - value: true\n    unit: tok/s\n"),
    "string nan": (THROUGHPUT, "  - value: 'nan'\n    unit: tok/s\n"),
    "hex": (THROUGHPUT, "  - value: 0x2F\n    unit: tok/s\n"),
    "octal": (THROUGHPUT, "  - value: 017\n    unit: tok/s\n"),
    "underscores": (THROUGHPUT, "  - value: 1_000\n    unit: tok/s\n"),
    "base 60": (THROUGHPUT, "  - value: 1:20\n    unit: tok/s\n"),
    "yaml nan": (THROUGHPUT, "  - value: .nan\n    unit: tok/s\n"),
    "yaml infinity": (THROUGHPUT, "  - value: .inf\n    unit: tok/s\n"),
    "401 digits": (THROUGHPUT, "  - value: " + "9" * 401 + "\n    unit: tok/s\n"),
    "unknown unit": (THROUGHPUT, "  - value: 24.06\n    unit: furlongs/fortnight\n"),
    "latency unit on a throughput": (THROUGHPUT, "  - value: 24.06\n    unit: ms\n"),
    "negative throughput": (THROUGHPUT, "  - value: -24.06\n    unit: tok/s\n"),
    "zero throughput": (THROUGHPUT, "  - value: 0\n    unit: tok/s\n"),
    "negative latency": (TTFT, "  - value: -2820.8\n    unit: ms\n"),
    "rate above 100 %": (RATE, "      value: 949\n      unit: '%'\n"),
    "fraction above 1": (RATE, "      value: 1.2\n      unit: fraction\n"),
    "rate in tok/s": (RATE, "      value: 0.9\n      unit: tok/s\n"),
    "mean length below 1": (MEAN_LENGTH, "      value: 0.79\n      unit: tokens\n"),
    "change below -100 %": (PERCENT, "      value: -125.8\n      unit: '%'\n"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_value_is_a_located_record_error(case: str, mini_ledger: Path) -> None:
    old, new = CASES[case]
    path = mini_ledger / "benchmarks" / "test-bench.md"
    text = path.read_text(encoding="utf-8")
    assert old in text
    start = text.index(old)
    wrong = text[:start] + new + text[start + len(old):]
    with pytest.raises(RecordError) as info:
        parse_record(wrong, path)
    err = info.value
    first_line = text[:start].count("\n") + 1
    if case == "zero throughput":  # an arm-level rule: located at the arm's results list
        first_line = text[:text.rindex("  results:", 0, start)].count("\n") + 1
    assert err.line in (first_line - 1, first_line, first_line + 1), (str(err), first_line)
    assert str(err).startswith(f"{path}:{err.line}: ")


def test_zero_gap_is_a_valid_itl(mini_ledger: Path) -> None:
    """A step's tokens can arrive together: a median ITL of 0.0 ms is real data (the bundled H200 record)."""
    path = mini_ledger / "benchmarks" / "test-bench.md"
    text = path.read_text(encoding="utf-8").replace(
        "  - value: 2820.8\n    unit: ms\n    provenance: quoted\n"
        "    quote: '| MTP4, high acceptance (94.9% / 4.79) | 2820.8 | 24.06 | **+25.8%** |'\n    metric: ttft\n",
        "  - value: 0.0\n    unit: ms\n    provenance: derived\n    formula: test\n    metric: itl\n    stat: median\n")
    record = parse_record(text, path)
    assert record.kind == "benchmark"


def test_zero_throughput_of_an_arm_that_completed_nothing_is_valid(mini_ledger: Path) -> None:
    """bench --record keeps an arm whose every request failed: 0 tok/s with completed_requests 0 is a measurement."""
    path = mini_ledger / "benchmarks" / "test-bench.md"
    text = path.read_text(encoding="utf-8").replace(
        THROUGHPUT, "  - value: 0\n    unit: requests\n    provenance: derived\n    formula: test\n"
        "    metric: completed_requests\n  - value: 0.0\n    unit: tok/s\n", 1)
    assert parse_record(text, path).kind == "benchmark"


@pytest.mark.parametrize("cond", [None, True, False, 0, 2, 2.5, "", "fp8", Known(value=4, quote="k=4"),
                                  Known(value=False), Known(value="1.2.3", quote="v1.2.3"),
                                  Unknown(unknown="source_omits", note="n/a")])
def test_condition_value_is_the_value_condition_parts_gives(cond: Condition | None) -> None:
    assert condition_value(cond) == condition_parts(cond)[1]
    assert type(condition_value(cond)) is type(condition_parts(cond)[1])
