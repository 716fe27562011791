"""Provenance of every number and the shape of every condition.

A number in the ledger is a ``Quantity`` whose ``provenance`` is exactly one of:

- ``quoted``   — taken from a source: ``source`` + verbatim ``quote`` (the audit finds the quote in the source's
  stored excerpt and the number in the quote);
- ``measured`` — produced by a benchledger run: ``run`` (folder) + ``sha256`` of its raw data;
- ``derived``  — computed by named code (``formula``) from ``inputs``. Never typed by hand.

A condition (model, input length, warmup, …) is either known (a scalar, or ``Known`` with an optional quote) or
``Unknown`` with a reason: ``source_omits`` (the source does not say) or ``unchecked`` (nobody looked yet).
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeAlias

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)

from benchledger.schema.units import UNITS

Provenance = Literal["quoted", "measured", "derived"]
UnknownReason = Literal["source_omits", "unchecked"]
Basis = Literal["vendor-spec", "third-party", "derived", "measured", "source-text"]

SLUG_PATTERN = r"^[a-z0-9]+(?:[._-][a-z0-9]+)*$"


def _within_float_range(value: int) -> int:
    try:
        float(value)
    except OverflowError:
        raise ValueError(f"a {len(str(abs(value)))}-digit integer is beyond any measured quantity") from None
    return value


FiniteFloat = Annotated[float, Field(strict=True, allow_inf_nan=False)]
Number: TypeAlias = Annotated[StrictInt, AfterValidator(_within_float_range)] | FiniteFloat
"""A real, finite number: a YAML int or float (never a string, a boolean, NaN or Infinity)."""


class StrictModel(BaseModel):
    """Base of every schema model: unknown keys are errors, assignment is validated."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, populate_by_name=True, defer_build=True)


class Quantity(StrictModel):
    """A number with its unit and its provenance."""

    value: Number
    unit: str = Field(min_length=1, description="A unit registered in schema/units.py, e.g. 'tok/s', 'ms', 'GB/s'.")
    provenance: Provenance
    source: str | None = Field(default=None, description="quoted: source id (default: the record's first source).")
    quote: str | None = Field(default=None, description="quoted: verbatim text from the source's stored excerpt.")
    run: str | None = Field(default=None, description="measured: run folder, relative to the ledger root.")
    sha256: str | None = Field(default=None, description="measured: sha256 of the run's raw requests file.")
    formula: str | None = Field(default=None, description="derived: name of the code that computes it.")
    inputs: list[str] = Field(default_factory=list, description="derived: what the formula was given.")
    basis: Basis | None = Field(default=None, description="vendor-spec, third-party, derived, measured, source-text.")
    note: str = ""

    @field_validator("unit")
    @classmethod
    def _registered_unit(cls, unit: str) -> str:
        if unit not in UNITS:
            raise ValueError(f"unit {unit!r} is not one benchledger knows (schema/units.py: {', '.join(UNITS)})")
        return unit

    @model_validator(mode="after")
    def _provenance_fields(self) -> Quantity:
        if self.provenance == "quoted" and not self.quote:
            raise ValueError("a quoted value needs 'quote' (verbatim text from its source)")
        if self.provenance == "measured" and not (self.run and self.sha256):
            raise ValueError("a measured value needs 'run' and 'sha256'")
        if self.provenance == "derived" and not self.formula:
            raise ValueError("a derived value needs 'formula' (the named code that computes it)")
        return self


class Unknown(StrictModel):
    """A condition or value that is not known, and why."""

    unknown: UnknownReason
    note: str = ""


class Known(StrictModel):
    """A known condition, optionally with the verbatim quote that states it."""

    value: StrictStr | StrictBool | Number
    quote: str | None = None
    source: str | None = None
    note: str = ""


Scalar: TypeAlias = StrictBool | Number | StrictStr
Condition: TypeAlias = Scalar | Known | Unknown
"""A condition: a bare scalar (known), ``Known`` (with quote/note) or ``Unknown`` (with reason)."""

MaybeQuantity: TypeAlias = Quantity | Unknown


def condition_parts(cond: Condition | None) -> tuple[str, Scalar | None, str | None, str | None, str | None]:
    """Split a condition into ``(status, value, reason, quote, source)``; status is known/unknown/absent."""
    if cond is None:
        return ("absent", None, None, None, None)
    if isinstance(cond, Unknown):
        return ("unknown", None, cond.unknown, None, None)
    if isinstance(cond, Known):
        return ("known", cond.value, None, cond.quote, cond.source)
    return ("known", cond, None, None, None)


def condition_value(cond: Condition | None) -> Scalar | None:
    """The known value of a condition, or None when unknown or absent (``condition_parts``' value, without the
    rest: the index reads it for every condition of every arm)."""
    if cond is None or isinstance(cond, Unknown):
        return None
    return cond.value if isinstance(cond, Known) else cond


__all__ = [
    "SLUG_PATTERN",
    "Basis",
    "Condition",
    "FiniteFloat",
    "Known",
    "MaybeQuantity",
    "Number",
    "Provenance",
    "Quantity",
    "Scalar",
    "StrictModel",
    "Unknown",
    "UnknownReason",
    "condition_parts",
    "condition_value",
]
