"""A finding: one thing an audit check says about one record, with a dotted code ``family.name``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]
SEVERITY_ORDER: dict[str, int] = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class Finding:
    """What a check found. ``field`` is a dotted path inside the record (``arms.fp8-base.results.0.quote``)."""

    code: str
    severity: Severity
    record: str
    field: str
    message: str
    waived: bool = False
    waiver_reason: str | None = None

    @property
    def family(self) -> str:
        return self.code.split(".", 1)[0]

    def as_row(self) -> dict[str, Any]:
        return {"code": self.code, "severity": self.severity, "record": self.record, "field": self.field,
                "message": self.message, "waived": self.waived, "waiver_reason": self.waiver_reason}

    def sort_key(self) -> tuple[int, str, str, str, str]:
        """A total order (the same findings sort the same however the checks ran)."""
        return (SEVERITY_ORDER[self.severity], self.record, self.code, self.field, self.message)


__all__ = ["SEVERITY_ORDER", "Finding", "Severity"]
