"""Record files: canonical round trip, precise errors, atomic writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchledger.errors import RecordError
from benchledger.ledger import Ledger, dump_record, load_record, parse_record, write_record
from benchledger.schema import RECORD_ADAPTER

from ledger_builder import benchmark


def test_roundtrip_is_byte_identical(mini_ledger: Path) -> None:
    for path in sorted(mini_ledger.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        assert dump_record(load_record(path)) == text, path


def test_known_condition_without_quote_is_written_as_scalar(mini_ledger: Path) -> None:
    text = (mini_ledger / "benchmarks" / "test-bench.md").read_text()
    assert "  weights: fp8-e4m3\n" in text


def test_id_must_match_filename(mini_ledger: Path) -> None:
    path = mini_ledger / "benchmarks" / "test-bench.md"
    wrong = path.with_name("other-name.md")
    wrong.write_text(path.read_text())
    with pytest.raises(RecordError) as info:
        load_record(wrong)
    assert info.value.field == "id"
    assert info.value.line == 2


def test_schema_error_names_line_and_field(mini_ledger: Path) -> None:
    path = mini_ledger / "benchmarks" / "test-bench.md"
    text = path.read_text().replace("metric: output_throughput", "metric: output_thruput", 1)
    with pytest.raises(RecordError) as info:
        parse_record(text, path)
    err = info.value
    line = text.splitlines()[err.line - 1]
    assert "output_thruput" in line
    assert err.field.endswith("metric")
    assert str(err).startswith(f"{path}:{err.line}: ")


def test_quoted_value_needs_quote(mini_ledger: Path) -> None:
    path = mini_ledger / "benchmarks" / "test-bench.md"
    lines = [line for line in path.read_text().splitlines(keepends=True) if "quote: '| baseline" not in line]
    with pytest.raises(RecordError) as info:
        parse_record("".join(lines), path)
    assert "quote" in str(info.value)


def test_missing_front_matter(tmp_path: Path) -> None:
    path = tmp_path / "sources" / "x.md"
    path.parent.mkdir()
    path.write_text("id: x\n")
    with pytest.raises(RecordError, match="start with a '---' line"):
        load_record(path)


def test_write_is_atomic_and_leaves_no_temp(tmp_path: Path) -> None:
    record = RECORD_ADAPTER.validate_python(benchmark())
    path = write_record(tmp_path, record)
    assert path == tmp_path / "benchmarks" / "test-bench.md"
    assert [p.name for p in path.parent.iterdir()] == ["test-bench.md"]


def test_strict_load_raises_first_error(mini_ledger: Path) -> None:
    (mini_ledger / "models" / "broken.md").write_text("---\nid: broken\n---\n")
    assert len(Ledger.load(mini_ledger).errors) == 1
    with pytest.raises(RecordError):
        Ledger.load(mini_ledger, strict=True)
