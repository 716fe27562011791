"""``benchledger init``: create an empty ledger folder (optionally with the bundled reference data).

The ledger is made whole in a temporary folder beside the target, then moved into place: a full disk, a quota
or Ctrl-C half-way leaves no half ledger (one with an empty ``.gitignore`` would let the cache be committed,
and a second ``init`` would refuse the folder as not empty). An empty target folder that existed is kept."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from benchledger.errors import LedgerError
from benchledger.ledger.atomic import current_umask
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
    the run data their measured numbers cite. All of it or nothing: see the module's docstring."""
    root = Path(target)
    existed = root.is_dir()
    if root.exists() and (not existed or any(root.iterdir())):
        raise LedgerError(f"{root}: exists and is not an empty folder")
    made = _make_parents(root.parent)
    try:
        work = Path(tempfile.mkdtemp(prefix=f".{root.name}.init-", dir=root.parent))
    except BaseException:
        _remove_empty(made)
        raise
    moved: list[Path] = []
    try:
        _scaffold(work, with_reference)
        if existed:  # (the user's folder stays, with its mode: what was made moves into it)
            for entry in sorted(work.iterdir()):
                entry.rename(root / entry.name)
                moved.append(root / entry.name)
            work.rmdir()
        else:
            work.chmod(0o777 & ~current_umask())  # (mkdtemp's folder is private)
            work.rename(root)
    except BaseException:
        for entry in moved:
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        shutil.rmtree(work, ignore_errors=True)
        _remove_empty(made)
        raise
    return root


def _scaffold(root: Path, with_reference: bool) -> None:
    for folder in KIND_FOLDERS.values():
        (root / folder).mkdir()
    (root / "runs").mkdir()
    (root / "waivers.yaml").write_text("[]\n", encoding="utf-8")
    (root / ".gitignore").write_text(GITIGNORE, encoding="utf-8")
    (root / "README.md").write_text(README.format(folders=", ".join(f"`{f}/`" for f in KIND_FOLDERS.values())),
                                    encoding="utf-8")
    if with_reference:
        _copy_reference(bundled_ledger_dir(), root)


def _make_parents(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; those this call made, deepest first."""
    missing = [p for p in (folder, *folder.parents) if not p.exists()]
    folder.mkdir(parents=True, exist_ok=True)
    return missing


def _remove_empty(folders: list[Path]) -> None:
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


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
