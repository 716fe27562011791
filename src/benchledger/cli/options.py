"""Options shared by every command (``--ledger``) and the console used to render."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from rich.console import Console

LedgerOption = typer.Option(
    None, "--ledger", "-L", help="Ledger folder (default: $BENCHLEDGER_LEDGER, else the bundled ledger/).",
    file_okay=False,
)


def console(stderr: bool = False) -> Console:
    """A console that does not wrap machine output (rich loads here: ``query -f csv`` never needs it)."""
    from rich.console import Console

    return Console(stderr=stderr, soft_wrap=True, highlight=False)


def load(ledger_dir: Path | None, *, strict: bool = False, report_failures: bool = True):  # type: ignore[no-untyped-def]
    """Load a ledger (lazy import keeps ``--help`` fast); say on stderr how many files failed to load and were
    left out (the audit lists each; it passes ``report_failures=False``)."""
    from benchledger.ledger import Ledger
    from benchledger.ledger.store import freeze_for_process, gc_paused

    with gc_paused():  # (frozen before the collector resumes: it would otherwise scan every record at once)
        ledger = Ledger.load(ledger_dir, strict=strict, require_layout=True)
        freeze_for_process()  # a CLI process is short-lived: keep the collector off the loaded records
    if report_failures and ledger.errors:
        console(stderr=True).print(f"warning: {ledger.failure_summary()}", markup=False)
    return ledger


__all__ = ["LedgerOption", "console", "load"]
