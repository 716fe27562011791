"""Layers point one way: the package import graph of ``src/benchledger`` has no cycle, and ``ledger`` never
imports the audit, the physics model or anything above them (imports read with ``ast``, lazy ones included)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "benchledger"
BELOW_LEDGER = {"schema", "errors", "metrics"}
"""What ``benchledger.ledger`` may import besides itself."""
PACKAGES = {p.name.removesuffix(".py") for p in SRC.iterdir() if p.suffix == ".py" or (p / "__init__.py").is_file()}
PACKAGES.discard("__init__")


def _package(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "benchledger" and len(parts) > 1 else None


def _imports(path: Path, text: str | None = None) -> set[str]:
    """Every ``benchledger.*`` module a file imports (relative imports resolved)."""
    source = path.read_text(encoding="utf-8") if text is None else text
    tree = ast.parse(source, filename=str(path))
    here = ["benchledger", *path.relative_to(SRC).with_suffix("").parts][:-1]  # the file's package
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(here[: len(here) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {m for m in found if m.startswith("benchledger.")}


def package_graph() -> dict[str, set[str]]:
    """Top-level package (``ledger``, ``audit``, …) → the other top-level packages it imports."""
    graph: dict[str, set[str]] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        owner = rel.parts[0].removesuffix(".py")
        if owner == "__init__":
            continue
        targets = {_package(m) for m in _imports(path)} & PACKAGES
        graph.setdefault(owner, set()).update(t for t in targets if t and t != owner)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a path ``[a, b, …, a]``, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


def test_the_package_import_graph_has_no_cycle() -> None:
    graph = package_graph()
    assert {"ledger", "audit", "perfmodel", "catalog", "cli"} <= set(graph)
    assert find_cycle(graph) is None, f"import cycle: {' → '.join(find_cycle(graph) or [])}"


def test_ledger_imports_nothing_above_it() -> None:
    for path in sorted((SRC / "ledger").rglob("*.py")):
        above = {m for m in _imports(path) if _package(m) not in BELOW_LEDGER | {"ledger"}}
        assert not above, f"{path.relative_to(SRC.parent)} imports {sorted(above)} (layers: schema ← ledger ← …)"


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("source", ["from benchledger.audit import run_audit",
                                    "from ..perfmodel import ceiling", "import benchledger.catalog.build"])
def test_imports_are_read_from_all_forms(source: str) -> None:
    text = f"def f() -> None:\n    {source}\n"
    found = {_package(m) for m in _imports(SRC / "ledger" / "probe.py", text)}
    assert found & {"audit", "perfmodel", "catalog"}
