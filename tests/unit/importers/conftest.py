"""Fixtures for importer tests: the copied tool fixtures and an empty ledger folder in tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.unit.importers.support import FIXTURES


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def ledger_dir(tmp_path: Path) -> Path:
    root = tmp_path / "ledger"
    root.mkdir()
    return root
