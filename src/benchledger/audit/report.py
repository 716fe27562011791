"""The audit report: findings sorted, counted, and the exit status they imply."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from benchledger.audit.finding import Finding


@dataclass
class AuditReport:
    """All findings of one audit run. Exit status 1 when any unwaived error-level finding."""

    findings: list[Finding] = field(default_factory=list)
    records_checked: int = 0

    def __post_init__(self) -> None:
        self.findings.sort(key=Finding.sort_key)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error" and not f.waived]

    @property
    def exit_code(self) -> int:
        return 1 if self.errors else 0

    def counts(self) -> dict[str, int]:
        counter = Counter(f.severity for f in self.findings if not f.waived)
        return {"error": counter["error"], "warning": counter["warning"], "info": counter["info"],
                "waived": sum(1 for f in self.findings if f.waived)}

    def by_code(self) -> dict[str, int]:
        return dict(sorted(Counter(f.code for f in self.findings if not f.waived).items()))

    def for_record(self, record_id: str) -> list[Finding]:
        return [f for f in self.findings if f.record == record_id]

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.exit_code == 0,
            "records_checked": self.records_checked,
            "counts": self.counts(),
            "by_code": self.by_code(),
            "findings": [f.as_row() for f in self.findings],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)


__all__ = ["AuditReport"]
