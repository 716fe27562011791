"""Commands on broken or unusual ledgers: never a crash, never silent (issue 11)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cli_runner import run_cli

BENCH = Path("benchmarks") / "test-bench.md"


def _break_date(root: Path) -> Path:
    path = root / BENCH
    path.write_text(path.read_text(encoding="utf-8").replace("- date: 2026-11-29", "- date: 2026-13-45", 1))
    return path


def test_every_command_survives_a_bad_file_and_says_so(mini_ledger: Path, tmp_path: Path) -> None:
    path = _break_date(mini_ledger)
    audit = run_cli("audit", "--ledger", str(mini_ledger), "--json")
    assert audit.exit_code == 1 and f"{path}:" in audit.stdout and "schema.invalid" in audit.stdout
    query = run_cli("query", "SELECT count(*) AS n FROM records", "--ledger", str(mini_ledger), "-f", "csv")
    assert query.exit_code == 0 and query.stdout.splitlines() == ["n", "5"]
    assert "1 of 6 files" in query.stderr and "failed to load" in query.stderr
    export = run_cli("export", "-f", "csv", "--out", str(tmp_path / "out"), "--ledger", str(mini_ledger))
    assert export.exit_code == 0 and "1 of 6 files" in export.stderr


def test_show_of_a_broken_record_prints_its_load_error(mini_ledger: Path) -> None:
    path = _break_date(mini_ledger)
    out = run_cli("show", "test-bench", "--ledger", str(mini_ledger))
    assert out.exit_code == 2
    assert "does not load" in out.stderr and f"{path}:" in out.stderr and "2026-13-45" in out.stderr
    assert "no record" not in out.stderr


@pytest.mark.parametrize("command", [["audit"], ["query", "SELECT 1"], ["export", "-f", "csv", "--out", "x"]])
def test_empty_or_unrelated_folder_is_an_error(tmp_path: Path, command: list[str]) -> None:
    (tmp_path / "holiday.jpg").write_bytes(b"not a ledger")
    out = run_cli(*command, "--ledger", str(tmp_path))
    assert out.exit_code == 2 and "not a ledger" in out.stderr
    assert "0 records" not in out.stdout


def test_init_with_reference_passes_its_own_audit(tmp_path: Path) -> None:
    target = tmp_path / "mine"
    assert run_cli("init", str(target), "--with-reference").exit_code == 0
    out = run_cli("audit", "--ledger", str(target))
    assert out.exit_code == 0, out.stdout[-3000:]
    assert " 0 errors" in out.stdout


def test_fmt_refuses_to_drop_comments(mini_ledger: Path) -> None:
    path = mini_ledger / BENCH
    text = path.read_text(encoding="utf-8").replace("title: Test experiment\n",
                                                    "title: Test experiment  # ask the author\n", 1)
    path.write_text(text, encoding="utf-8")
    check = run_cli("fmt", "--check", "--ledger", str(mini_ledger))
    assert check.exit_code == 1 and f"refused: {path}:4: has YAML comments" in check.stdout
    out = run_cli("fmt", "--ledger", str(mini_ledger))
    assert out.exit_code == 1 and f"refused: {path}:4" in out.stdout
    assert path.read_text(encoding="utf-8") == text  # nothing lost


def test_fmt_check_fails_on_crlf(mini_ledger: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(mini_ledger, copy)
    path = copy / "sources" / "test-source.md"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    out = run_cli("fmt", "--check", "--ledger", str(copy))
    assert out.exit_code != 0 and "CRLF" in out.stderr


def test_fmt_never_turns_a_string_into_a_number(mini_ledger: Path) -> None:
    """``value: '47.0'`` is refused at its line (strict numbers), not rewritten to 47 (issue 11)."""
    path = mini_ledger / BENCH
    text = path.read_text(encoding="utf-8").replace("  - value: 24.06\n", "  - value: '24.06'\n", 1)
    path.write_text(text, encoding="utf-8")
    out = run_cli("fmt", "--ledger", str(mini_ledger))
    assert out.exit_code == 2 and f"{path}:" in out.stderr
    assert path.read_text(encoding="utf-8") == text
