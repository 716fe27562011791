"""``benchledger.sweep`` reaches the harness through one module (``sweep/harness.py``) and never imports typer/rich."""

from __future__ import annotations

import ast
from pathlib import Path

import benchledger.sweep

SWEEP = Path(benchledger.sweep.__file__).parent


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_only_the_adapter_imports_the_harness() -> None:
    offenders = {p.name: sorted(n for n in imported(p) if n.startswith("benchledger.bench"))
                 for p in SWEEP.glob("*.py") if p.name != "harness.py"}
    assert {k: v for k, v in offenders.items() if v} == {}
    assert any(n.startswith("benchledger.bench") for n in imported(SWEEP / "harness.py"))


def test_the_core_never_imports_the_cli_framework() -> None:
    for path in SWEEP.glob("*.py"):
        assert not {n.split(".")[0] for n in imported(path)} & {"typer", "rich", "click"}, path.name
