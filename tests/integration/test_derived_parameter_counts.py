"""Every model parameter count the bundled ledger marks ``derived`` is what its stated formula gives over its stated
inputs, and each input named after an architecture field equals that field in the same record: a derived count
typed by hand (a slip in the arithmetic, an input copied wrong) fails here. Formulas are written in the records as
arithmetic (``·`` for times, ``²`` for squared), an explanation in parentheses after two spaces."""

from __future__ import annotations

from decimal import Decimal

import pytest
from tests.record_formulas import evaluate, numeric_inputs

from benchledger.ledger import Ledger
from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.schema import Quantity
from benchledger.schema.reference import ModelArch

INPUT_FIELDS = {"V": "vocab_size", "H": "hidden_size", "n_h": "num_heads", "n_kv": "num_kv_heads",
                "d_h": "head_dim", "I": "intermediate_size", "E": "experts_total", "k": "experts_active",
                "I_e": "expert_intermediate_size"}
"""Formula symbol → the record field it must equal (when the record knows that field)."""


def derived_counts() -> list[tuple[ModelArch, str, Quantity]]:
    ledger = Ledger.load(bundled_ledger_dir())
    return [(model, name, q) for model in ledger.typed("model", ModelArch) for name in ("params_total", "params_active")
            if isinstance(q := getattr(model, name), Quantity) and q.provenance == "derived"
            and q.formula and q.unit == "B"]


COUNTS = derived_counts()


def test_the_ledger_has_derived_counts_to_check() -> None:
    assert len(COUNTS) >= 30  # 36 when written: the test below must not pass by checking nothing


@pytest.mark.parametrize(("model", "name", "quantity"), COUNTS, ids=[f"{m.id}.{n}" for m, n, _ in COUNTS])
def test_a_derived_parameter_count_is_its_formula_over_its_inputs(model: ModelArch, name: str, quantity: Quantity) -> None:
    inputs = numeric_inputs(quantity.inputs)
    try:
        value = evaluate(str(quantity.formula), inputs)
    except (SyntaxError, ValueError, KeyError) as exc:
        pytest.skip(f"{model.id}.{name}: the formula is prose, not arithmetic ({exc})")
    printed = Decimal(str(quantity.value))
    exponent = printed.as_tuple().exponent
    assert isinstance(exponent, int)
    half_unit = Decimal(1).scaleb(exponent) / 2  # half the last printed digit, in billions
    assert abs(Decimal(value) / Decimal(10**9) - printed) <= half_unit, f"{model.id}.{name}: {value} vs {printed} B"
    for symbol, field in INPUT_FIELDS.items():
        known = getattr(model, field, None)
        if symbol in inputs and isinstance(known, Quantity):
            assert inputs[symbol] == known.value, f"{model.id}.{name}: input {symbol} ≠ the record's {field}"


def test_a_count_typed_wrong_or_an_input_copied_wrong_is_caught() -> None:
    """The check above can fail: a slip in the arithmetic or in an input is found."""
    quantity = next(q for _, _, q in COUNTS if any(t.startswith("H=") for t in q.inputs))
    inputs = numeric_inputs(quantity.inputs)
    right = evaluate(str(quantity.formula), inputs) / 10**9
    assert abs(right - float(quantity.value)) < 1e-6
    assert evaluate(str(quantity.formula), {**inputs, "H": inputs["H"] + 1}) / 10**9 != pytest.approx(right, rel=1e-9)
