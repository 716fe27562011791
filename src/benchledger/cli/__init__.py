"""The command line: the only package that imports typer and rich. Each command parses, calls the core, renders.

Command groups live in sibling modules, each with ``register(app)``; they are listed in ``COMMAND_MODULES``.
Errors raised on purpose (``BenchledgerError``) print as one line and exit 2 unless ``--debug``.
"""

from __future__ import annotations

import importlib
import os
import sys

import typer

from benchledger.errors import BenchledgerError

COMMAND_MODULES: tuple[str, ...] = ("ledger", "bench", "model", "site", "imports")

app = typer.Typer(
    name="benchledger",
    help="Evidence ledger, harness and physics model for LLM inference speed and speculative decoding.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks instead of one-line errors."),
) -> None:
    if debug:
        os.environ["BENCHLEDGER_DEBUG"] = "1"


def _register_all() -> None:
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"benchledger.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"benchledger.cli.{name}":
                continue
            raise
        module.register(app)


_register_all()


def main() -> None:
    """Console-script entry point."""
    try:
        app(standalone_mode=True)
    except BenchledgerError as exc:
        if os.environ.get("BENCHLEDGER_DEBUG") or "--debug" in sys.argv:
            raise
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)


__all__ = ["COMMAND_MODULES", "app", "main"]
