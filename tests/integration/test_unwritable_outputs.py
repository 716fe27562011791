"""A cache that cannot be written (a full disk, a quota, a file size limit) costs the answer nothing: the
command answers from a fresh index built in memory, says on stderr that it could not keep it, and leaves no
half-written database behind (catalog/cache.py: _not_written). An export that cannot be written says which
file in one line and leaves only whole files (ledger/export.py). The limit is a real one: ``RLIMIT_FSIZE`` in the
command's process, under which every write past it fails with EFBIG, as on a full disk."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from benchledger.catalog.cache import CACHE_DIR, current_db, open_index

from ledger_builder import build_mini_ledger

LIMITED = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # (a write past the limit then fails with EFBIG)
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), resource.RLIM_INFINITY))
from benchledger.cli import main
sys.argv = ["benchledger", *sys.argv[2:]]
main()
"""


def _limited(limit: int, *args: str) -> subprocess.CompletedProcess[str]:
    """``benchledger ARGS`` in a process that may write no file past ``limit`` bytes."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-c", LIMITED, str(limit), *args], capture_output=True, text=True,
                          env=env, timeout=300, check=False)


def _written(root: Path) -> list[str]:
    return sorted(p.name for p in (root / CACHE_DIR).iterdir() if p.name != ".gitignore")


QUERY = ("query", "select count(*) as n from arms", "-f", "csv")


def test_a_cache_that_cannot_be_written_answers_from_memory_and_says_so(tmp_path: Path) -> None:
    """100 kB: the cache folder's small files are written, DuckDB's checkpoint fails (a fatal error in DuckDB)."""
    root = build_mini_ledger(tmp_path / "ledger")
    out = _limited(100_000, *QUERY, "--ledger", str(root))
    assert out.returncode == 0, out.stderr
    assert out.stdout == "n\n2\n"
    warnings = [line for line in out.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1 and "could not be cached" in warnings[0], out.stderr
    assert "Traceback" not in out.stderr
    assert _written(root) == []  # nothing half-written is left


def test_a_machine_where_nothing_can_be_written_gets_one_line_and_no_half_written_file(tmp_path: Path) -> None:
    """0: not a byte anywhere, not even the row files a fresh build in memory goes through: exit 2, the reason in
    one line; the cache folder's ``.gitignore`` is whole or absent (an empty one would stop ignoring the cache)."""
    root = build_mini_ledger(tmp_path / "ledger")
    out = _limited(0, *QUERY, "--ledger", str(root))
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in out.stderr, out.stderr
    assert out.stdout == ""
    ignore = root / CACHE_DIR / ".gitignore"
    assert not ignore.exists() or ignore.read_text(encoding="utf-8").endswith("*\n")
    assert _written(root) == []


def test_an_update_that_cannot_be_written_answers_from_memory_and_keeps_the_old_cache(tmp_path: Path) -> None:
    root = build_mini_ledger(tmp_path / "ledger")
    open_index(root).close()
    before = current_db(root)
    assert before is not None
    bench = root / "benchmarks" / "test-bench.md"
    bench.write_text(bench.read_text(encoding="utf-8") + "\nEdited.\n", encoding="utf-8")
    out = _limited(before.stat().st_size // 2, "audit", "--summary", "--ledger", str(root))
    assert out.returncode == 0, out.stderr
    assert " 0 errors" in out.stdout and "could not be cached" in out.stderr
    assert current_db(root) == before and _written(root) == sorted(["CURRENT", before.name])
    index = open_index(root)  # (no limit: the next command brings the cache up to date)
    try:
        assert index.status.startswith("updated") and index.not_kept is None
    finally:
        index.close()


def test_an_export_that_cannot_be_written_says_which_file_in_one_line(tmp_path: Path) -> None:
    """Under a 500-byte limit some views fit and the next does not: exit 2, one line naming it; every file
    there is whole and no temporary file is left."""
    root = build_mini_ledger(tmp_path / "ledger")
    open_index(root).close()
    out_dir = tmp_path / "out"
    out = _limited(500, "export", "-f", "csv", "--out", str(out_dir), "--ledger", str(root))
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: could not write ") and "Traceback" not in out.stderr
    written = sorted(p.name for p in out_dir.iterdir())
    assert not [name for name in written if name.startswith(".")], written
    for name in written:
        assert (out_dir / name).read_text(encoding="utf-8").endswith("\n"), name


def test_an_init_that_cannot_be_written_leaves_no_half_ledger(tmp_path: Path) -> None:
    """50 bytes: ``waivers.yaml`` fits, ``.gitignore`` does not. The old code left the folder with an empty
    ``.gitignore`` (the cache would be committed), and the next ``init`` refused it as not empty. Now: exit 2,
    one line, no folder, and ``init`` again (no limit) makes a whole ledger."""
    target = tmp_path / "new" / "ledger"
    out = _limited(50, "init", str(target))
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in out.stderr, out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # (its parent too: this run made it)
    again = _limited(10_000_000, "init", str(target))
    assert again.returncode == 0, again.stderr
    assert (target / ".gitignore").read_text(encoding="utf-8").endswith(f"{CACHE_DIR}/\n")
    assert (target / "waivers.yaml").read_text(encoding="utf-8") == "[]\n"
    assert not [p for p in target.parent.iterdir() if p.name.startswith(".")]  # no temporary folder left
    umask = os.umask(0o022)
    os.umask(umask)
    assert target.stat().st_mode & 0o777 == 0o777 & ~umask  # (as mkdir makes it, not mkdtemp's private 0o700)


def test_an_init_into_an_empty_folder_that_fails_keeps_the_folder_and_leaves_it_empty(tmp_path: Path) -> None:
    """The folder was the user's (made before): it stays, empty, with its own mode; what this run made is gone."""
    target = tmp_path / "ledger"
    target.mkdir()
    target.chmod(0o750)
    out = _limited(50, "init", str(target))
    assert out.returncode == 2, out.stderr
    assert target.is_dir() and list(target.iterdir()) == [] and (target.stat().st_mode & 0o777) == 0o750
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger"]
    assert _limited(10_000_000, "init", str(target)).returncode == 0
    assert (target / "README.md").is_file() and (target.stat().st_mode & 0o777) == 0o750


def test_an_init_with_reference_that_fails_while_copying_leaves_nothing(tmp_path: Path) -> None:
    """A limit the scaffold fits under but a reference record does not: the copy fails half-way; no folder."""
    target = tmp_path / "ledger"
    out = _limited(1_500, "init", "--with-reference", str(target))
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert "/accelerators/" in out.stderr, out.stderr  # (the scaffold's own files fit: it failed copying records)
    assert list(tmp_path.iterdir()) == []


def test_an_init_stopped_with_ctrl_c_while_copying_leaves_nothing(tmp_path: Path) -> None:
    """SIGINT once the copy of the reference records has begun (a record file seen anywhere under the parent):
    ``interrupted``, exit 130, no folder. A run that finished before the signal arrived is tried again."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for attempt in range(5):
        parent = tmp_path / f"try-{attempt}"
        parent.mkdir()
        proc = subprocess.Popen([sys.executable, "-m", "benchledger", "init", "--with-reference",
                                 str(parent / "ledger")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env)
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if any(p.parent.name == "accelerators" for p in parent.rglob("*.md")):
                proc.send_signal(signal.SIGINT)
                break
            time.sleep(0.005)  # (a poll's interval, not a wait for anything: the event is the file above)
        _, stderr = proc.communicate(timeout=120)
        if proc.returncode == 0:  # (finished before the signal: nothing to check)
            continue
        assert proc.returncode == 130, stderr
        assert stderr.strip().splitlines()[-1] == "interrupted", stderr
        assert list(parent.iterdir()) == []
        return
    raise AssertionError("init --with-reference finished before SIGINT every time")
