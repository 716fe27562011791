"""The command line: the only package that imports typer and rich. Each command parses, calls the core, renders.

Command groups live in sibling modules, each with ``register(app)``; ``COMMANDS`` names the module of every
command, so that a call imports only the module of the command it runs (``--help`` imports them all to list
them). Errors raised on purpose (``BenchledgerError``) and errors of the machine (``OSError``: a full disk, a folder
that cannot be written) print as one line and exit 2 unless ``--debug``: the app's own group (``OneLineErrors``)
does that, so the console script, ``python -m benchledger`` and an in-process
``typer.testing.CliRunner`` behave the same.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

import typer
from typer.core import TyperGroup

from benchledger.errors import BenchledgerError

COMMANDS: dict[str, str] = {
    "init": "ledger", "fmt": "ledger", "audit": "ledger", "query": "ledger", "show": "ledger", "export": "ledger",
    "coverage": "ledger", "outcomes": "outcomes", "bench": "bench", "demo": "bench", "predict": "model",
    "advise": "model", "calibrate": "model", "import": "imports", "ingest-table": "imports", "site": "site",
    "sweep": "sweep",
}
"""Every command (in ``--help`` order) and the module under ``benchledger.cli`` whose ``register`` adds it."""
COMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(COMMANDS.values()))
ERROR_EXIT = 2
INTERRUPTED_EXIT = 130


def tidy_metavars(command: Any, ctx: Any) -> None:
    """Give every option of ``command`` (and its subcommands) a real metavar: none for a flag (typer would
    print ``<bool>``), ``DIR``/``PATH`` for paths, ``N`` for numbers, else the option's name (``--model MODEL``).
    Choices keep their list; explicit metavars are kept."""
    for param in command.params:
        if getattr(param, "param_type_name", "") != "option" or param.metavar is not None:
            continue
        if hasattr(param, "display_type"):  # typer 0.29+
            label = param.display_type(ctx)
        else:  # typer before 0.29: the click type's name
            label = f"<{getattr(param.type, 'name', '')}>"
        if param.is_flag or label in ("<bool>", "<boolean>"):
            param.metavar = ""
        elif "|" in label or label == "<choice>":
            continue
        elif label in ("<dir>", "<directory>"):
            param.metavar = "DIR"
        elif label in ("<path>", "<file>"):
            param.metavar = "PATH"
        elif label.startswith(("<int", "<float")):
            param.metavar = "N"
        else:
            long = next((o for o in param.opts if o.startswith("--")), param.opts[0])
            param.metavar = long.lstrip("-").upper().replace("-", "_")
    if not getattr(command, "_bl_help_tidied", False):  # typer builds --help per call: tidy it when built
        build_help = command.get_help_option

        def get_help_option(help_ctx: Any) -> Any:
            option = build_help(help_ctx)
            if option is not None:
                option.metavar = ""
            return option

        command.get_help_option = get_help_option
        command._bl_help_tidied = True
    for sub in getattr(command, "commands", {}).values():
        tidy_metavars(sub, ctx)


def command_group(module: str) -> TyperGroup:
    """The click group of the commands that ``benchledger.cli.<module>`` registers."""
    commands = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    importlib.import_module(f"benchledger.cli.{module}").register(commands)
    return typer.main.get_group(commands)


class OneLineErrors(TyperGroup):
    """The root group: a ``BenchledgerError`` or an ``OSError`` from any command becomes ``error: …`` on stderr
    and exit 2, Ctrl-C ``interrupted`` and exit 130.

    Its commands are built when first resolved (``COMMANDS`` says from which module), and it tidies option
    metavars (``tidy_metavars``) of itself and of each command it resolves.
    """

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        tidy_metavars(self, None)  # before parsing: --help is handled while the context is made
        return super().make_context(info_name, args, parent, **extra)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(dict.fromkeys([*COMMANDS, *super().list_commands(ctx)]))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            for name, built in command_group(COMMANDS[cmd_name]).commands.items():
                self.commands.setdefault(name, built)
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            tidy_metavars(command, ctx)
        return command

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in COMMANDS:  # not a command: typer's "did you mean" picks among all of them
            for name in COMMANDS:
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (BenchledgerError, OSError) as exc:
            if ctx.params.get("debug") or os.environ.get("BENCHLEDGER_DEBUG"):
                raise
            typer.echo("error: " + " ".join(line.strip() for line in str(exc).splitlines() if line.strip()), err=True)
            raise typer.Exit(ERROR_EXIT) from None
        except KeyboardInterrupt:  # Ctrl-C in a command that does not handle it itself (audit, query, …)
            typer.echo("interrupted", err=True)
            raise typer.Exit(INTERRUPTED_EXIT) from None


app = typer.Typer(
    name="benchledger",
    cls=OneLineErrors,
    help="Evidence ledger, harness and physics model for LLM inference speed and speculative decoding.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        from benchledger import __version__

        typer.echo(f"benchledger {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks instead of one-line errors."),
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                 help="Print the version and exit."),
) -> None:
    """Evidence ledger, harness and physics model for LLM inference speed and speculative decoding."""


def main() -> None:
    """Console-script entry point."""
    app()


__all__ = ["COMMANDS", "COMMAND_MODULES", "ERROR_EXIT", "INTERRUPTED_EXIT", "OneLineErrors", "app", "command_group",
           "main"]
