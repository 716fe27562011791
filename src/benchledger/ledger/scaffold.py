"""``benchledger init``: create an empty ledger folder (optionally with the bundled reference data)."""

from __future__ import annotations

import shutil
from pathlib import Path

from benchledger.errors import LedgerError
from benchledger.ledger.location import CACHE_FOLDER
from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.ledger.store import Ledger
from benchledger.schema import KIND_FOLDERS
from benchledger.schema.walk import walk_evidence

REFERENCE_KINDS = ("accelerator", "interconnect", "format", "engine", "model")
GITIGNORE = f"# the index cache benchledger keeps next to the records (rebuilt from them; never committed)\n{CACHE_FOLDER}/\n"
README = """# A benchledger ledger

One record per file: `<kind folder>/<id>.md` (YAML front matter + Markdown body). Folders:
{folders}.
`waivers.yaml` lists accepted audit findings (code, record, reason, date). `runs/` holds raw measured data.
Check it with `benchledger audit --ledger .`; query it with `benchledger query --ledger . "SELECT …"`.
"""


def init_ledger(target: Path | str, *, with_reference: bool = False) -> Path:
    """Create the folder layout; with ``with_reference`` copy the bundled reference records, their sources and
    the run data their measured numbers cite."""
    root = Path(target)
    if root.exists() and any(root.iterdir()):
        raise LedgerError(f"{root}: folder exists and is not empty")
    root.mkdir(parents=True, exist_ok=True)
    for folder in KIND_FOLDERS.values():
        (root / folder).mkdir()
    (root / "runs").mkdir()
    (root / "waivers.yaml").write_text("[]\n", encoding="utf-8")
    (root / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    (root / "README.md").write_text(README.format(folders=", ".join(f"`{f}/`" for f in KIND_FOLDERS.values())),
                                    encoding="utf-8")
    if with_reference:
        _copy_reference(bundled_ledger_dir(), root)
    return root


def _copy_reference(source_root: Path, root: Path) -> None:
    bundled = Ledger.load(source_root)
    needed_sources: set[str] = set()
    needed_runs: set[str] = set()
    for record in bundled:
        if record.kind in REFERENCE_KINDS:
            shutil.copy2(bundled.paths[record.id], root / KIND_FOLDERS[record.kind] / bundled.paths[record.id].name)
            needed_sources.update(record.sources)
            for ref in _cited_sources(record):
                needed_sources.add(ref)
            needed_runs.update(run for _, item in walk_evidence(record) if (run := getattr(item, "run", None)))
    for run in sorted(needed_runs):  # measured reference numbers (e.g. a model read back from its file)
        src, dest = source_root / run, root / run
        if src.is_file() and not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)
        elif src.is_dir() and not dest.exists():
            shutil.copytree(src, dest)
    for source_id in sorted(needed_sources):
        if source_id in bundled.paths:
            shutil.copy2(bundled.paths[source_id], root / KIND_FOLDERS["source"] / bundled.paths[source_id].name)


def _cited_sources(record: object) -> set[str]:
    return {item.source for _, item in walk_evidence(record) if item.source}


__all__ = ["REFERENCE_KINDS", "init_ledger"]
