"""The arithmetic formulas that derived values in the bundled ledger's records write (``·`` for times, ``²`` for
squared, an explanation in parentheses after two spaces), evaluated over their ``NAME=number`` inputs. Shared by
the tests that recompute those values (tests/integration/test_derived_parameter_counts.py, test_derived_bandwidths.py)."""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable

_OPS: dict[type, Callable[[float, float], float]] = {ast.Add: operator.add, ast.Sub: operator.sub,
                                                     ast.Mult: operator.mul, ast.Div: operator.truediv,
                                                     ast.Pow: operator.pow}
INPUT = re.compile(r"([A-Za-z_]+)=([0-9]+(?:\.[0-9]+)?)")
"""One numeric input as a record lists it: ``H=4096``."""


def numeric_inputs(inputs: list[str]) -> dict[str, float]:
    """The ``NAME=number`` entries of a derived value's inputs (other entries explain, they are not inputs)."""
    return {m[1]: float(m[2]) for text in inputs if (m := INPUT.fullmatch(text))}


def evaluate(formula: str, inputs: dict[str, float]) -> float:
    """The value of an arithmetic formula as the records write it (names, numbers, + − · / ² and parentheses)."""
    text = re.split(r"\s{2,}\(", formula)[0].replace("·", "*").replace("×", "*").replace("²", "**2")
    return _value(ast.parse(text, mode="eval").body, inputs)


def _value(node: ast.AST, inputs: dict[str, float]) -> float:
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_value(node.left, inputs), _value(node.right, inputs))
    if isinstance(node, ast.Name):
        return inputs[node.id]
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    raise ValueError(f"not arithmetic: {ast.dump(node)}")
