"""Shared fixtures: a tiny valid ledger on disk, isolated environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger_builder import build_mini_ledger


@pytest.fixture
def mini_ledger(tmp_path: Path) -> Path:
    """A valid ledger folder (one source, reference records, a baseline + MTP benchmark)."""
    return build_mini_ledger(tmp_path / "ledger")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BENCHLEDGER_LEDGER", raising=False)
    monkeypatch.delenv("BENCHLEDGER_DEBUG", raising=False)
