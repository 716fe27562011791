"""A cache built under other versions of the libraries the index depends on is rebuilt, not trusted: their
parsing, validation, JSON and SQL are part of what a fresh build gives (catalog/cache.py: RESULT_LIBRARIES)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

from benchledger.catalog.cache import RESULT_LIBRARIES, library_identities, open_index

from ledger_builder import build_mini_ledger

STATUS = "from benchledger.catalog.cache import open_index; import sys; print(open_index(sys.argv[1]).status)"


def _status(root: Path, pythonpath: Path | None = None) -> str:
    """What ``open_index`` did in a new process (``pythonpath``: first on its module search path)."""
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(pythonpath), env.get("PYTHONPATH")) if p)
    out = subprocess.run([sys.executable, "-c", STATUS, str(root)], capture_output=True, text=True, env=env,
                         timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_a_cache_built_under_another_copy_of_a_library_is_rebuilt(tmp_path: Path) -> None:
    """An upgrade of orjson (which writes the rows and the checks' fingerprints) stands in as another copy of
    it, first on the path: the cache built with the installed one is rebuilt, and so is it when the installed
    one is back; with nothing changed the cache answers."""
    root = build_mini_ledger(tmp_path / "ledger")
    open_index(root).close()
    assert _status(root) == "current"
    spec = importlib.util.find_spec("orjson")
    assert spec is not None and spec.origin is not None
    shadow = tmp_path / "shadow"
    shutil.copytree(Path(spec.origin).parent, shadow / "orjson")
    assert _status(root, shadow).startswith("rebuilt"), "a cache built with another orjson was trusted"
    assert _status(root, shadow) == "current"
    assert _status(root).startswith("rebuilt")


def test_each_library_is_identified_by_its_installed_version() -> None:
    """The version beside each library is found (a pip upgrade changes it even where its files' stats would not)."""
    lines = library_identities()
    assert len(lines) == len(RESULT_LIBRARIES)
    for line, (module, dist) in zip(lines, RESULT_LIBRARIES.items(), strict=True):
        assert line.startswith(f"{module}\0")
        assert f"{dist}-{importlib.metadata.version(dist)}.dist-info".lower() in line.split("\0")[-1].split(), line
