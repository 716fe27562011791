"""Docs are checked against the code: every view documented, every CLI command in the README."""

from __future__ import annotations

from pathlib import Path

from benchledger.catalog.viewdocs import DOCS_PATH, render_for_empty_ledger

ROOT = Path(__file__).resolve().parents[1]


def test_index_docs_fresh_and_complete() -> None:
    expected = render_for_empty_ledger()
    assert "UNDOCUMENTED" not in expected
    assert DOCS_PATH.read_text(encoding="utf-8") == expected, "run `python -m benchledger.catalog.viewdocs`"


def test_readme_names_every_command() -> None:
    from cli_runner import command_tree

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = sorted(path.split()[0] for path in command_tree() if path)
    missing = [c for c in commands if f"benchledger {c}" not in readme]
    assert not missing, f"README does not mention: {missing}"


def test_readme_opens_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```bash", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line and not line.startswith("#")]
    assert len(lines) == 2
    assert "benchledger" in lines[0] and "pip install" in lines[0]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert lines[1].split("&& ", 2)[-1] in ci


def _command_options() -> dict[str, set[str]]:
    from cli_runner import command_tree

    return {path: {o for p in command.params for o in getattr(p, "opts", [])}
            for path, command in command_tree().items() if not hasattr(command, "list_commands")}


def test_readme_command_one_uses_real_flags_and_the_ledger_claim_holds() -> None:
    """Command 1's flags exist; every command that reads a ledger takes --ledger, as the README says (init
    takes the folder to create instead)."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = next(line for line in readme.split("```bash", 1)[1].split("```", 1)[0].splitlines()
                 if line and not line.startswith("#"))
    options = _command_options()
    for step in first.split("&&"):
        words = step.split()
        if words and words[0] == "benchledger":
            assert words[1] in options, step
            for flag in (w for w in words[2:] if w.startswith("--")):
                assert flag in options[words[1]], f"{step}: {flag}"
    assert "Every command that reads a ledger takes `--ledger DIR` (`init` takes the folder to create" in readme
    without = sorted(c for c, opts in options.items() if "--ledger" not in opts)
    assert without == ["init", "sweep example", "sweep plan", "sweep status"], without  # these read no ledger
    assert re.search(r"`OUT/conc-N/<arm>/`", readme)


def test_source_cites_only_documents_in_this_repository() -> None:
    """A ``*.md`` named in the code is a file of this repository (docs/, README.md, …), never an outside note."""
    import re

    names = {m for path in (ROOT / "src").rglob("*.py")
             for m in re.findall(r"(?<![\w/.-])([\w./-]+\.md)\b", path.read_text(encoding="utf-8"))}
    files = {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.md") if ".venv" not in p.parts}
    basenames = {f.rsplit("/", 1)[-1] for f in files}
    cited = {n.lstrip("/") for n in names if not n.startswith("-")}  # "-…" is the tail of an elided id
    outside = sorted(n for n in cited if n not in files and n.rsplit("/", 1)[-1] not in basenames)
    assert outside == [], f"cited but not in the repository: {outside}"
