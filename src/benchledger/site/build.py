"""``build_site``: ledger folder → a static site folder, deterministically and atomically.

The site is written to a temporary sibling folder and swapped into place only when complete, so a failed
build never leaves a half-written site. An existing output folder is replaced only when it is empty or an
earlier benchledger site (it holds the ``.benchledger-site`` marker) — never an arbitrary folder.
Same ledger files → same bytes: no dates, no absolute paths, explicit ordering everywhere.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from benchledger.catalog.build import build_catalog
from benchledger.catalog.cache import open_index
from benchledger.errors import LedgerError
from benchledger.ledger.duckdb_engine import duckdb
from benchledger.ledger.store import Ledger
from benchledger.site.context import SiteData, load_site_data
from benchledger.site.downloads import write_downloads
from benchledger.site.pages import PageRenderer
from benchledger.site.plots import coverage_plot, efficiency_plots, pareto_plots, speedup_plots

MARKER = ".benchledger-site"
MARKER_TEXT = "This folder is a site built by `benchledger site build`; the next build replaces it.\n"
STAGING_MARKER = ".benchledger-staging"
"""Written first into every staging folder: the host and pid of the build that owns it."""
STATIC_FILES: tuple[str, ...] = ("site.css", "site.js")


@dataclass(frozen=True)
class BuildReport:
    """What a build wrote."""

    out: Path
    records: int
    benchmarks: int
    pages: int
    plots: int
    files: int
    load_errors: int


def ledger_digest(ledger: Ledger) -> str:
    """sha256 over every record file (relative path + bytes), in path order."""
    digest = hashlib.sha256()
    for record_id in sorted(ledger.paths, key=lambda rid: ledger.paths[rid].as_posix()):
        path = ledger.paths[record_id]
        digest.update(path.relative_to(ledger.root).as_posix().encode("utf-8") + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def check_target(out: Path) -> None:
    """Refuse to replace anything but an empty folder or an earlier site."""
    if not out.exists():
        return
    if not out.is_dir():
        raise LedgerError(f"{out}: --out exists and is not a folder")
    if any(out.iterdir()) and not (out / MARKER).is_file():
        raise LedgerError(f"{out}: --out is a non-empty folder that is not a benchledger site "
                          f"(no {MARKER} file); choose an empty or new folder")


def build_site(
    ledger: Ledger | Path | str | None, out: Path | str, *, findings: list[dict[str, Any]] | None = None
) -> BuildReport:
    """Build the site of a ledger (a loaded ``Ledger`` or its folder) into ``out``.

    ``findings`` are audit rows already computed (``Finding.as_row()``); when None the audit runs here. A ledger
    given by its folder is read through its cached index (``catalog.cache``): after an ``audit`` nothing is
    audited or indexed again.
    """
    target = Path(out).resolve()
    check_target(target)
    if not isinstance(ledger, Ledger) and findings is None:
        index = open_index(ledger)
        con = index.con
        ledger = Ledger.load(index.root, require_layout=True)
    else:
        if not isinstance(ledger, Ledger):
            ledger = Ledger.load(ledger, require_layout=True)
        con = build_catalog(ledger, findings=findings)
    try:
        data = load_site_data(ledger, con, ledger_digest(ledger))
        target.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_staging(target)
        staging = _new_staging(target, "building")
        (staging / STAGING_MARKER).write_text(f"{socket.gethostname()} {os.getpid()}\n", encoding="utf-8")
        try:
            counts = _write_site(data, con, staging)
            (staging / STAGING_MARKER).unlink()  # the site marker written by _write_site now proves it ours
            _swap_into_place(staging, target)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    finally:
        con.close()
    files = sum(1 for p in target.rglob("*") if p.is_file())
    return BuildReport(out=target, records=len(ledger), benchmarks=len(data.benchmarks), pages=counts[0],
                       plots=counts[1], files=files, load_errors=len(ledger.errors))


def _write_site(data: SiteData, con: duckdb.DuckDBPyConnection, root: Path) -> tuple[int, int]:
    (root / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
    static = resources.files("benchledger.site") / "static"
    (root / "static").mkdir()
    for name in STATIC_FILES:
        (root / "static" / name).write_bytes((static / name).read_bytes())
    plots = [*speedup_plots(data), *pareto_plots(data), *efficiency_plots(data), coverage_plot(data)]
    (root / "plots").mkdir()
    for plot in plots:
        (root / "plots" / f"{plot.slug}.svg").write_text(plot.svg, encoding="utf-8")
    downloads = write_downloads(con, data.ledger, root)
    renderer = PageRenderer(data)
    pages = 0
    for rel, html in (renderer.index(downloads), *renderer.plot_pages(plots), *renderer.lists()):
        _write(root, rel, html)
        pages += 1
    for generator in (renderer.benchmarks(plots), renderer.sources(), renderer.references()):
        for rel, html in generator:
            _write(root, rel, html)
            pages += 1
    return pages, len(plots)


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        handle.write(text)


def _swap_into_place(staging: Path, target: Path) -> None:
    """Replace ``target`` with ``staging`` (two renames; the old site is removed afterwards)."""
    old = None
    if target.exists():
        old = _new_staging(target, "old")
        old.rmdir()
        target.rename(old)
    staging.rename(target)
    target.chmod(0o755)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _host_tag() -> str:
    return hashlib.sha256(socket.gethostname().encode("utf-8")).hexdigest()[:8]


def _new_staging(target: Path, role: str) -> Path:
    """``.<name>.<role>-<host tag>-<pid>-<random>`` beside the target: a later build can tell whose it is."""
    return Path(tempfile.mkdtemp(prefix=f".{target.name}.{role}-{_host_tag()}-{os.getpid()}-", dir=target.parent))


def remove_stale_staging(target: Path) -> list[Path]:
    """Remove staging folders (``.building-*``, ``.old-*``) that earlier builds of ``target`` left when killed.

    Only folders it can prove are such leftovers: the name says this host and a pid that is no longer running,
    and the folder is empty or holds the staging marker or the site marker (a half-built or old site). Returns what it removed."""
    removed: list[Path] = []
    for role in ("building", "old"):
        prefix = f".{target.name}.{role}-{_host_tag()}-"
        for folder in sorted(target.parent.glob(f"{prefix}*")):
            pid_text = folder.name[len(prefix):].split("-", 1)[0]
            if not folder.is_dir() or folder.is_symlink() or not pid_text.isdigit() or _alive(int(pid_text)):
                continue
            if any((folder / m).is_file() for m in (STAGING_MARKER, MARKER)) or not any(folder.iterdir()):
                shutil.rmtree(folder)
                removed.append(folder)
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


__all__ = ["MARKER", "STAGING_MARKER", "BuildReport", "build_site", "check_target", "ledger_digest",
           "remove_stale_staging"]
