"""Run the command line in-process with typer's ``CliRunner``: exit code, stdout and stderr as a user sees them.

The one-line error handling lives in the app (``benchledger.cli.OneLineErrors``), so this sees the same exit
code 2 and ``error: …`` line as the console script; a few tests still run a real subprocess as a smoke check.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.testing import CliRunner, Result

from benchledger.cli import app


def run_cli(*args: str, env: dict[str, str] | None = None) -> Result:
    """``benchledger ARGS…`` in this process; unexpected exceptions propagate (a traceback, not a bad exit)."""
    return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)


def command_tree() -> dict[str, Any]:
    """Every command and group of the app by its path (``''`` is the app, then ``query``, ``site build``, …),
    resolved as a call resolves it (the app builds a command when it is first asked for)."""
    found: dict[str, Any] = {}

    def walk(command: Any, path: str, parent: Any) -> None:
        found[path] = command
        ctx = typer.Context(command, info_name=path.rsplit(" ", 1)[-1] or "benchledger", parent=parent)
        for name in getattr(command, "list_commands", lambda _ctx: [])(ctx):
            walk(command.get_command(ctx, name), f"{path} {name}".strip(), ctx)

    walk(typer.main.get_command(app), "", None)
    return found


__all__ = ["Result", "command_tree", "run_cli"]
