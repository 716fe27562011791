"""Every accelerator memory bandwidth the bundled ledger marks ``derived`` is its formula over its inputs, and every
numeric input is written in a verbatim quote that a stored source's excerpt holds (an input entry ``quote: '…'`` for
the value's own source, ``quote <source id>: '…'`` for another): a peak bandwidth worked out from a quoted transfer
rate and bus width cannot be typed by hand or rest on an unquoted input. Formulas are arithmetic as in
tests/record_formulas.py."""

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

QUOTE = re.compile(r"quote(?: ([a-z0-9][a-z0-9.-]*))?: '(.+)'", re.DOTALL)
"""An input entry that carries a verbatim quote: of the source it names, else of the value's own source."""

LEDGER = Ledger.load(bundled_ledger_dir())
DERIVED = [(a, q) for a in LEDGER.typed("accelerator", Accelerator)
           if isinstance(q := a.memory_bandwidth_gbs, Quantity) and q.provenance == "derived"]


def problems(quantity: Quantity, texts: dict[str, str]) -> list[str]:
    """Why a derived bandwidth does not follow from its quoted inputs (empty when it does); ``texts`` holds the
    stored excerpt of each source id."""
    found: list[str] = []
    inputs = numeric_inputs(quantity.inputs)
    value = evaluate(str(quantity.formula), inputs)
    exponent = Decimal(str(quantity.value)).as_tuple().exponent
    assert isinstance(exponent, int)
    if abs(Decimal(value) - Decimal(str(quantity.value))) > Decimal(1).scaleb(exponent) / 2:
        found.append(f"the formula gives {value}, the record says {quantity.value}")
    quotes = [(m[1] or quantity.source, m[2]) for text in quantity.inputs if (m := QUOTE.fullmatch(text))]
    if not quotes:
        found.append("no input entry quotes a source")
    for source, quote in quotes:
        text = texts.get(source or "")
        if text is None:
            found.append(f"source {source!r} is not a stored source")
        elif " ".join(quote.split()) not in " ".join(text.split()):
            found.append(f"quote {quote!r} is not in the excerpt of {source}")
    for name, number in inputs.items():
        if not any(value_in_text(number, quote, None) for _, quote in quotes):
            found.append(f"input {name}={number:g} is not written in a quote")
    return found


def stored_texts() -> dict[str, str]:
    return {record.id: record.body for record in LEDGER.of_kind("source")}


TEXTS = stored_texts()


def test_the_ledger_has_derived_bandwidths_to_check() -> None:
    assert DERIVED  # the check below must not pass by checking nothing


@pytest.mark.parametrize(("accelerator", "quantity"), DERIVED, ids=[a.id for a, _ in DERIVED])
def test_a_derived_bandwidth_is_its_formula_over_quoted_inputs(accelerator: Accelerator, quantity: Quantity) -> None:
    assert quantity.unit == "GB/s"
    assert problems(quantity, TEXTS) == [], accelerator.id


def test_a_bandwidth_typed_wrong_or_an_input_not_quoted_is_caught() -> None:
    """The check above can fail: a wrong value, an input the quote does not hold, a quote the source lacks."""
    _, quantity = DERIVED[0]
    assert problems(quantity, TEXTS) == []
    assert problems(quantity.model_copy(update={"value": quantity.value + 1}), TEXTS)
    changed = [t if not t.startswith("W=") else "W=64" for t in quantity.inputs]
    assert problems(quantity.model_copy(update={"inputs": changed, "value": quantity.value * 2}), TEXTS)
    assert problems(quantity, {sid: "an excerpt that says nothing about memory" for sid in TEXTS})
