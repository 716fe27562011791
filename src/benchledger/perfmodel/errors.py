"""The one error the physics model raises: a needed input is unknown or missing."""

from __future__ import annotations

from benchledger.errors import BenchledgerError


class MissingInputError(BenchledgerError):
    """A record the model needs lacks a value (unknown or absent); says which record and field."""

    def __init__(self, record: str, field: str, message: str) -> None:
        self.record = record
        self.field = field
        self.reason = message
        super().__init__(f"{record}: {field}: {message}")


__all__ = ["MissingInputError"]
