"""Render tables for the terminal and as plain text, TSV, CSV or JSON.

One rule for every command: a number or an id is never truncated or wrapped. When stdout is not a terminal
(a pipe, a file, a test) a table is plain aligned text — numbers right-aligned, every cell whole, lines as long
as they need to be. In a terminal it is a rich table whose short columns (ids, numbers) keep their full width;
only long prose (messages, details) wraps. ``echo_table`` prints to stdout and loads rich only when stdout may
be a terminal (``query``'s warm path stays light).
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "dim"}
MISSING = "—"
"""How a table shows a missing value (CSV and TSV leave the cell empty)."""
PROSE_WIDTH = 40
"""A column of words whose widest cell is longer than this (a message, a detail) may wrap in a terminal; ids,
numbers and other space-free cells never do."""


def cell(value: Any, missing: str = "") -> str:
    """A value as text: floats to 6 significant digits, None as ``missing``."""
    if value is None:
        return missing
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _numeric(values: Sequence[Any]) -> bool:
    present = [v for v in values if v is not None]
    return bool(present) and all(isinstance(v, int | float) and not isinstance(v, bool) for v in present)


def display_path(path: Path | str) -> str:
    """A path relative to the working folder when it is inside it, else as given."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def plain_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], title: str | None = None) -> str:
    """Aligned text, two spaces between columns, numbers right-aligned; nothing cut (no trailing spaces)."""
    text = [[cell(v, MISSING) for v in row] for row in rows]
    header = [str(c) for c in columns]
    widths = [max([len(header[i]), *(len(r[i]) for r in text)]) for i in range(len(header))]
    right = [_numeric([row[i] for row in rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        parts = [c.rjust(w) if r else c.ljust(w) for c, w, r in zip(cells, widths, right, strict=True)]
        return "  ".join(parts).rstrip()

    out = [title] if title else []
    out += [line(header), line(["-" * w for w in widths]), *(line(r) for r in text)]
    return "\n".join(out) + "\n"


def tsv_text(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Tab-separated, header first; tabs and newlines inside cells become spaces."""

    def clean(v: Any) -> str:
        return cell(v).replace("\t", " ").replace("\n", " ")

    return "".join("\t".join(clean(v) for v in row) + "\n" for row in [list(columns), *rows])


def rich_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], title: str | None = None) -> Table:
    """A terminal table: ids and numbers never wrap (their minimum width is their content), long prose folds."""
    from rich.table import Table

    out = Table(title=title, show_lines=False)
    text = [[cell(v, MISSING) for v in row] for row in rows]
    for i, column in enumerate(columns):
        widest = max([len(str(column)), *(len(r[i]) for r in text)])
        numeric = _numeric([row[i] for row in rows])
        prose = widest > PROSE_WIDTH and any(" " in r[i] for r in text)
        if numeric or not prose:
            out.add_column(str(column), no_wrap=True, min_width=widest, justify="right" if numeric else "left")
        else:
            out.add_column(str(column), overflow="fold", ratio=1)
    for row in text:
        out.add_row(*row)
    return out


def print_table(con: Console, columns: Sequence[str], rows: Sequence[Sequence[Any]],
                title: str | None = None) -> None:
    """A rich table in a terminal, plain aligned text otherwise (see the module docstring)."""
    if con.is_terminal:
        con.print(rich_table(columns, rows, title))
    else:
        con.file.write(plain_table(columns, rows, title))
        con.file.flush()


def may_be_terminal(stream: Any) -> bool:
    """Whether rich could take ``stream`` for a terminal: it is a TTY, or ``FORCE_COLOR`` / ``TTY_COMPATIBLE``
    is set (rich's own overrides). When not, rich would print a table as ``plain_table``, so it need not load."""
    if "FORCE_COLOR" in os.environ or "TTY_COMPATIBLE" in os.environ:
        return True
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty is not None and isatty())
    except ValueError:  # a closed stream
        return False


def echo_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], title: str | None = None) -> None:
    """``print_table`` on stdout, the same bytes; rich loads only when stdout may be a terminal."""
    if may_be_terminal(sys.stdout):
        from benchledger.cli.options import console

        print_table(console(), columns, rows, title)
    else:
        sys.stdout.write(plain_table(columns, rows, title))
        sys.stdout.flush()


def csv_text(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([[cell(v) for v in row] for row in rows])
    return buffer.getvalue()


def json_text(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    return json.dumps([dict(zip(columns, row, strict=True)) for row in rows], indent=2, default=str)


__all__ = [
    "SEVERITY_STYLE",
    "cell",
    "csv_text",
    "display_path",
    "echo_table",
    "json_text",
    "may_be_terminal",
    "plain_table",
    "print_table",
    "rich_table",
    "tsv_text",
]
