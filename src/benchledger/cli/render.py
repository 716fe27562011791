"""Render tables and findings for the terminal (rich) and as CSV/JSON text."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

from rich.table import Table

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "dim"}


def table(columns: Sequence[str], rows: Sequence[Sequence[Any]], title: str | None = None) -> Table:
    out = Table(title=title, show_lines=False)
    for column in columns:
        out.add_column(str(column), overflow="fold")
    for row in rows:
        out.add_row(*(_cell(v) for v in row))
    return out


def csv_text(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([[_cell(v) for v in row] for row in rows])
    return buffer.getvalue()


def json_text(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    return json.dumps([dict(zip(columns, row, strict=True)) for row in rows], indent=2, default=str)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


__all__ = ["SEVERITY_STYLE", "csv_text", "json_text", "table"]
