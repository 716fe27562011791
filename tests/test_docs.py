"""Docs are checked against the code: every view documented, every CLI command in the README."""

from __future__ import annotations

from pathlib import Path

from benchledger.catalog.viewdocs import DOCS_PATH, render_for_empty_ledger

ROOT = Path(__file__).resolve().parents[1]


def test_index_docs_fresh_and_complete() -> None:
    expected = render_for_empty_ledger()
    assert "UNDOCUMENTED" not in expected
    assert DOCS_PATH.read_text(encoding="utf-8") == expected, "run `python -m benchledger.catalog.viewdocs`"


def test_readme_names_every_command() -> None:
    from typer.main import get_command

    from benchledger.cli import app

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = sorted(get_command(app).commands)  # type: ignore[attr-defined]
    missing = [c for c in commands if f"benchledger {c}" not in readme]
    assert not missing, f"README does not mention: {missing}"


def test_readme_opens_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```bash", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line and not line.startswith("#")]
    assert len(lines) == 2
    assert "benchledger" in lines[0] and "pip install" in lines[0]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert lines[1].split("&& ", 2)[-1] in ci
