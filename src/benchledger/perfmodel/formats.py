"""Storage cost of a weight or KV format: ``FormatSpec`` (bytes per element including block scales)."""

from __future__ import annotations

from dataclasses import dataclass

from benchledger.perfmodel.errors import MissingInputError
from benchledger.schema import Format, Quantity


@dataclass(frozen=True)
class FormatSpec:
    """A numeric format: its id and bytes per stored element (scales included)."""

    id: str
    bytes_per_param: float


def format_from_record(record: Format) -> FormatSpec:
    """Build a ``FormatSpec`` from a ledger ``Format`` record."""
    value = record.bytes_per_param
    if not isinstance(value, Quantity):
        raise MissingInputError(record.id, "bytes_per_param", "needed by the roofline but unknown")
    return FormatSpec(record.id, float(value.value))


__all__ = ["FormatSpec", "format_from_record"]
