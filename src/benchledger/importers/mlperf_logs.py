"""MLPerf LoadGen ``mlperf_log_summary.txt``: the lines a result is read from, each kept verbatim as its quote.

A summary is ``label : value`` lines in three sections (results summary, additional stats, test parameters).
``SummaryLog.line(label)`` finds the first line whose label equals ``label`` (case and spacing ignored) and
returns it stripped — the quote — with its value text. Nothing is computed here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_LABEL_SPACE = re.compile(r"\s+")


def _norm(label: str) -> str:
    return _LABEL_SPACE.sub(" ", label).strip().lower()


@dataclass(frozen=True)
class LogLine:
    """One ``label : value`` line: the stripped line (the quote) and its value text."""

    quote: str
    value: str

    def number(self) -> int | float | None:
        """The value as written: an int when it has no decimal point or exponent, else a float."""
        try:
            return int(self.value) if self.value.lstrip("-").isdigit() else float(self.value)
        except ValueError:
            return None


class SummaryLog:
    """The labelled lines of one summary file."""

    def __init__(self, text: str) -> None:
        self.lines: list[tuple[str, LogLine]] = []
        for raw in text.splitlines():
            label, colon, value = raw.partition(":")
            if colon and label.strip():
                self.lines.append((_norm(label), LogLine(raw.strip(), value.strip())))

    def line(self, label: str) -> LogLine | None:
        want = _norm(label)
        return next((ln for name, ln in self.lines if name == want), None)

    @property
    def scenario(self) -> str | None:
        found = self.line("Scenario")
        return found.value if found else None

    @property
    def valid(self) -> bool:
        found = self.line("Result is")
        return found is not None and found.value == "VALID"


__all__ = ["LogLine", "SummaryLog"]
