"""No file can crash a load: each bad file becomes one located error, and every other record still loads
(issue 11)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchledger.errors import LedgerError, RecordError
from benchledger.ledger import Ledger, write_record
from benchledger.ledger.io import MAX_RECORD_BYTES, atomic_write_text, load_record
from benchledger.ledger.paths import require_ledger_layout
from benchledger.schema import RECORD_ADAPTER

from ledger_builder import benchmark

BENCH = Path("benchmarks") / "test-bench.md"


def _rewrite(root: Path, old: str, new: str) -> Path:
    path = root / BENCH
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def _only_error(root: Path) -> RecordError:
    ledger = Ledger.load(root)
    assert len(ledger.errors) == 1, [str(e) for e in ledger.errors]
    assert len(ledger) == 5  # every other record of the tiny ledger still loads
    return ledger.errors[0]


def test_invalid_date_is_located(mini_ledger: Path) -> None:
    path = _rewrite(mini_ledger, "- date: 2026-11-29", "- date: 2026-13-45")
    err = _only_error(mini_ledger)
    assert err.path == path and err.code == "schema.invalid"
    assert "2026-13-45" in path.read_text().splitlines()[err.line - 1]
    assert "month must be in 1..12" in str(err)


def test_huge_integer_is_located(mini_ledger: Path) -> None:
    digits = "9" * 401
    path = _rewrite(mini_ledger, "    value: 1\n    quote: concurrency 1", f"    value: {digits}\n    quote: concurrency 1")
    err = _only_error(mini_ledger)
    assert digits in path.read_text().splitlines()[err.line - 1]
    assert "401-digit integer" in str(err)


def test_bare_huge_integer_condition_is_located(mini_ledger: Path) -> None:
    path = _rewrite(mini_ledger, "  scenario: fixed-concurrency\n", "  scenario: fixed-concurrency\n  num_prompts: "
                    + "9" * 401 + "\n")
    err = _only_error(mini_ledger)
    assert err.path == path and "num_prompts" in err.field


def _bomb(levels: int, width: int) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def test_alias_bomb_is_refused_before_it_expands(mini_ledger: Path) -> None:
    """30 levels of 10 aliases would expand to 10^30 nodes: finishing at all proves nothing was expanded."""
    path = mini_ledger / BENCH
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("title: Test experiment\n", "title: Test experiment\n" + _bomb(30, 10), 1))
    err = _only_error(mini_ledger)
    assert "anchors/aliases are not allowed" in str(err)
    assert err.line == 5  # the first anchor: after ---, id, kind and title


def test_anchor_without_alias_is_refused(mini_ledger: Path) -> None:
    _rewrite(mini_ledger, "title: Test experiment", "title: &t Test experiment")
    assert "anchors/aliases are not allowed" in str(_only_error(mini_ledger))


def test_deep_nesting_is_an_error_not_a_crash(mini_ledger: Path) -> None:
    _rewrite(mini_ledger, "title: Test experiment", "title: Test experiment\nx: " + "[" * 50_000 + "]" * 50_000)
    err = _only_error(mini_ledger)
    assert err.path == mini_ledger / BENCH


def test_oversized_file_is_refused_unread(mini_ledger: Path) -> None:
    path = mini_ledger / BENCH
    with path.open("r+b") as handle:
        handle.truncate(MAX_RECORD_BYTES + 1)  # sparse: no disk written
    err = _only_error(mini_ledger)
    assert err.code == "files.too-large" and f"{MAX_RECORD_BYTES:,}-byte limit" in str(err)


@pytest.mark.parametrize(("mutate", "expected"), [
    (lambda b: b"\xef\xbb\xbf" + b, "byte-order mark (BOM)"),
    (lambda b: b.replace(b"Test experiment", b"Test \xff experiment"), "not UTF-8"),
    (lambda b: b.replace(b"\n", b"\r\n"), "CRLF"),
])
def test_encoding_problems_are_named(mini_ledger: Path, mutate: object, expected: str) -> None:
    path = mini_ledger / BENCH
    path.write_bytes(mutate(path.read_bytes()))  # type: ignore[operator]
    err = _only_error(mini_ledger)
    assert err.code == "files.encoding" and expected in str(err)
    assert err.line is not None and str(err).startswith(f"{path}:{err.line}: ")


def test_crlf_source_fails_instead_of_passing_its_hash(mini_ledger: Path) -> None:
    """Its bytes differ from the stored sha256 (taken over LF text), so it must not load as if they did not."""
    path = mini_ledger / "sources" / "test-source.md"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    with pytest.raises(RecordError, match="CRLF"):
        load_record(path)


def test_record_in_a_sub_folder_is_reported(mini_ledger: Path) -> None:
    sub = mini_ledger / "benchmarks" / "sub"
    sub.mkdir()
    (sub / "x.md").write_text((mini_ledger / BENCH).read_text())
    ledger = Ledger.load(mini_ledger)
    assert [(e.path, e.code) for e in ledger.errors] == [(sub / "x.md", "files.in-subfolder")]
    with pytest.raises(RecordError, match="not loaded"):
        Ledger.load(mini_ledger, strict=True)


def test_broken_record_get_names_its_load_error(mini_ledger: Path) -> None:
    _rewrite(mini_ledger, "- date: 2026-11-29", "- date: 2026-13-45")
    with pytest.raises(LedgerError, match=r"'test-bench' does not load: .*test-bench.md:\d+: .*2026-13-45"):
        Ledger.load(mini_ledger).get("test-bench")


@pytest.mark.parametrize("make", [lambda p: None, lambda p: (p / "notes.txt").write_text("hello")])
def test_empty_or_unrelated_folder_is_not_a_ledger(tmp_path: Path, make: object) -> None:
    make(tmp_path)  # type: ignore[operator]
    with pytest.raises(LedgerError, match="not a ledger"):
        require_ledger_layout(tmp_path)
    with pytest.raises(LedgerError, match="not a ledger"):
        Ledger.load(tmp_path, require_layout=True)


@pytest.fixture
def umask() -> Iterator[None]:
    old = os.umask(0o027)
    yield
    os.umask(old)


def test_rewrite_keeps_mode_and_new_files_follow_umask(mini_ledger: Path, umask: None) -> None:
    path = mini_ledger / BENCH
    path.chmod(0o664)
    atomic_write_text(path, path.read_text(encoding="utf-8"))
    assert stat.S_IMODE(path.stat().st_mode) == 0o664
    new = write_record(mini_ledger, RECORD_ADAPTER.validate_python(benchmark("brand-new")))
    assert stat.S_IMODE(new.stat().st_mode) == 0o640  # 0o666 less the umask, not mkstemp's 0o600
