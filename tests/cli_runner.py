"""Run the command line in-process with typer's ``CliRunner``: exit code, stdout and stderr as a user sees them.

The one-line error handling lives in the app (``benchledger.cli.OneLineErrors``), so this sees the same exit
code 2 and ``error: …`` line as the console script; a few tests still run a real subprocess as a smoke check.
"""

from __future__ import annotations

from typer.testing import CliRunner, Result

from benchledger.cli import app


def run_cli(*args: str, env: dict[str, str] | None = None) -> Result:
    """``benchledger ARGS…`` in this process; unexpected exceptions propagate (a traceback, not a bad exit)."""
    return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)


__all__ = ["Result", "run_cli"]
