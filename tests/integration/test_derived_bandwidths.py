"""Every accelerator memory bandwidth the bundled ledger marks ``derived`` is its formula over its inputs, and every
numeric input is written in a verbatim quote (an input entry ``quote: '…'``) that the cited source's stored excerpt
holds: a peak bandwidth worked out from a quoted transfer rate and bus width cannot be typed by hand or rest on an
unquoted input. Formulas are arithmetic as in tests/record_formulas.py."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from tests.record_formulas import evaluate, numeric_inputs

from benchledger.audit.numbers import value_in_text
from benchledger.ledger import Ledger
from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.schema import Quantity
from benchledger.schema.reference import Accelerator

QUOTE = re.compile(r"quote: '(.+)'", re.DOTALL)
"""An input entry that carries a verbatim quote of the value's source (the quote's own ' are doubled)."""

LEDGER = Ledger.load(bundled_ledger_dir())
DERIVED = [(a, q) for a in LEDGER.typed("accelerator", Accelerator)
           if isinstance(q := a.memory_bandwidth_gbs, Quantity) and q.provenance == "derived"]


def problems(quantity: Quantity, source_text: str | None) -> list[str]:
    """Why a derived bandwidth does not follow from its quoted inputs (empty when it does)."""
    found: list[str] = []
    inputs = numeric_inputs(quantity.inputs)
    value = evaluate(str(quantity.formula), inputs)
    exponent = Decimal(str(quantity.value)).as_tuple().exponent
    assert isinstance(exponent, int)
    if abs(Decimal(value) - Decimal(str(quantity.value))) > Decimal(1).scaleb(exponent) / 2:
        found.append(f"the formula gives {value}, the record says {quantity.value}")
    quotes = [m[1].replace("''", "'") for text in quantity.inputs if (m := QUOTE.fullmatch(text))]
    if source_text is None:
        found.append(f"source {quantity.source!r} is not a stored source")
    elif not quotes:
        found.append("no input entry quotes the source")
    for quote in quotes:
        if source_text is not None and " ".join(quote.split()) not in " ".join(source_text.split()):
            found.append(f"quote {quote!r} is not in the source's excerpt")
    for name, number in inputs.items():
        if not any(value_in_text(number, quote, None) for quote in quotes):
            found.append(f"input {name}={number:g} is not written in a quote")
    return found


def source_text(quantity: Quantity) -> str | None:
    source = LEDGER.get(quantity.source) if quantity.source else None
    return source.body if source is not None else None


def test_the_ledger_has_derived_bandwidths_to_check() -> None:
    assert DERIVED  # the check below must not pass by checking nothing


@pytest.mark.parametrize(("accelerator", "quantity"), DERIVED, ids=[a.id for a, _ in DERIVED])
def test_a_derived_bandwidth_is_its_formula_over_quoted_inputs(accelerator: Accelerator, quantity: Quantity) -> None:
    assert quantity.unit == "GB/s"
    assert problems(quantity, source_text(quantity)) == [], accelerator.id


def test_a_bandwidth_typed_wrong_or_an_input_not_quoted_is_caught() -> None:
    """The check above can fail: a wrong value, an input the quote does not hold, a quote the source lacks."""
    _, quantity = DERIVED[0]
    text = source_text(quantity)
    assert problems(quantity.model_copy(update={"value": quantity.value + 1}), text)
    changed = [t if not t.startswith("W=") else "W=64" for t in quantity.inputs]
    assert problems(quantity.model_copy(update={"inputs": changed, "value": quantity.value * 2}), text)
    assert problems(quantity, "an excerpt that says nothing about memory")
