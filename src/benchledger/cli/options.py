"""Options shared by every command (``--ledger``) and the console used to render."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

LedgerOption = typer.Option(
    None, "--ledger", "-L", help="Ledger folder (default: $BENCHLEDGER_LEDGER, else the bundled ledger/).",
    file_okay=False,
)


def console(stderr: bool = False) -> Console:
    """A console that does not wrap machine output."""
    return Console(stderr=stderr, soft_wrap=True, highlight=False)


def load(ledger_dir: Path | None, *, strict: bool = False):  # type: ignore[no-untyped-def]
    """Load a ledger (lazy import keeps ``--help`` fast)."""
    from benchledger.ledger import Ledger
    from benchledger.ledger.store import freeze_for_process

    ledger = Ledger.load(ledger_dir, strict=strict)
    freeze_for_process()  # a CLI process is short-lived: keep the collector off the loaded records
    return ledger


__all__ = ["LedgerOption", "console", "load"]
