"""The command line builds only the command it runs (``benchledger/cli/__init__.py``: ``COMMANDS`` names each
command's module): the table matches what the modules register, ``--help`` still lists every command with its
one-line help, and a call imports no other command's module (the warm ``query`` path: test_index_warm.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from benchledger import __version__
from benchledger.cli import COMMAND_MODULES, COMMANDS, command_group
from benchledger.ledger.paths import bundled_ledger_dir

from cli_runner import command_tree, run_cli
from ledger_builder import build_mini_ledger


def test_the_command_table_names_the_module_of_every_registered_command() -> None:
    registered = {name: module for module in COMMAND_MODULES for name in command_group(module).commands}
    assert registered == COMMANDS


def test_help_lists_every_command_in_table_order_with_its_one_line_help() -> None:
    tree = command_tree()
    text = run_cli("--help", env={"COLUMNS": "400"}).stdout
    rows = [line.strip("│ ").split(None, 1) for line in text.splitlines() if line.startswith("│ ")]
    listed = [row[0] for row in rows if row and row[0] in COMMANDS]
    assert listed == list(COMMANDS)
    flat = " ".join(text.replace("│", " ").split())
    for name in COMMANDS:
        short = tree[name].get_short_help_str(limit=400)
        assert f"{name} {' '.join(short.split())}" in flat, name


def test_a_call_imports_only_the_module_of_its_command(tmp_path: Path) -> None:
    modules = tmp_path / "modules.json"
    code = ("import atexit, json, sys\n"
            f"atexit.register(lambda: open({str(modules)!r}, 'w').write(json.dumps(sorted(sys.modules))))\n"
            "sys.argv = ['benchledger', 'sweep', 'example']\n"
            "from benchledger.cli import main\n"
            "main()\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip()
    loaded = {m.removeprefix("benchledger.cli.") for m in json.loads(modules.read_text(encoding="utf-8"))
              if m.startswith("benchledger.cli.")}
    assert loaded & set(COMMAND_MODULES) == {"sweep"}


def test_a_mistyped_command_still_gets_the_closest_name() -> None:
    result = run_cli("quer")
    assert result.exit_code == 2
    assert "Did you mean 'query'?" in result.stderr


GC_DURING_IMPORT = """
import gc, sys
during = []

def seen(phase, info):
    cli = sys.modules.get("benchledger.cli")
    if phase == "start" and cli is not None and not hasattr(cli, "main"):  # (benchledger.cli being imported)
        during.append(info["generation"])

gc.callbacks.append(seen)
sys.argv = ["benchledger", "--version"]
{start}
"""


def test_the_command_line_is_imported_with_the_collector_paused() -> None:
    # (python -m benchledger, and the console script: pyproject.toml names benchledger.__main__:run)
    for start in ("import runpy\ntry:\n    runpy.run_module('benchledger', run_name='__main__')\n"
                  "except SystemExit:\n    pass",
                  "from benchledger.__main__ import run\ntry:\n    run()\nexcept SystemExit:\n    pass"):
        code = GC_DURING_IMPORT.format(start=start) + "print(len(during), gc.isenabled())\n"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
        assert out.stdout.splitlines()[-2:] == [f"benchledger {__version__}", "0 True"], out.stdout + out.stderr


GC_LARGEST = """
import atexit, gc, sys
largest = [0]

def seen(phase, info):  # how many objects each collection examines: those of its generation and younger
    if phase == "start":
        largest[0] = max(largest[0], sum(len(gc.get_objects(g)) for g in range(info["generation"] + 1)))

atexit.register(lambda: print("largest", largest[0]))
sys.argv = ["benchledger", *{args!r}]
from benchledger.__main__ import run
gc.callbacks.append(seen)  # (from here: the interpreter's own start-up is not the command's)
run()
"""


def _largest_collection(*args: str) -> tuple[list[str], int]:
    """``benchledger ARGS`` in a fresh process: its output lines and the most objects one collection examined."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", GC_LARGEST.format(args=list(args))], capture_output=True, text=True,
                         timeout=120, env=env, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    return lines[:-1], int(lines[-1].removeprefix("largest "))


def test_no_collection_rescans_what_the_command_line_or_the_index_loaded(tmp_path: Path) -> None:
    """The collector is paused while the command line is imported, while the index opens and while a ledger
    loads; everything alive is frozen before it resumes (``freeze_for_process``). The old code froze after
    resuming: the first collection examined all of it (14,000-39,000 objects on this ledger, ~40 ms after an
    update at 10,000 records; 165,000 after ``audit --only`` loaded the shipped ledger); now none examines more than
    the young generations hold (~7,700 at CPython's default thresholds). Cold build, warm query, update, and a
    command that loads the ledger (``audit --only``: ``cli/options.py: load``)."""
    root = build_mini_ledger(tmp_path / "ledger")
    bench = root / "benchmarks" / "test-bench.md"
    for step in ("rebuilt", "current", "updated"):
        if step == "updated":
            bench.write_text(bench.read_text(encoding="utf-8") + "\nEdited.\n", encoding="utf-8")
        lines, largest = _largest_collection("query", "select count(*) as n from benchmarks", "-f", "csv",
                                             "--ledger", str(root))
        assert lines == ["n", "1"]
        assert largest < 10_000, (step, largest)
    lines, largest = _largest_collection("audit", "--only", "identity", "--summary", "--ledger",
                                         str(bundled_ledger_dir()))
    assert " 0 errors" in lines[-1] and largest < 10_000, (lines, largest)
