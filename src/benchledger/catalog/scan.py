"""What a ledger's files are now, cheaply: each record file's content hash, and a digest of every other
file (``runs/`` data and the like). Imports nothing heavy, so a command that finds its cached index current stays fast.

The rule for "unchanged" (as git's index has it): a record file whose size, mtime, ctime and inode all equal
the cached entry keeps the cached hash, unread. An edit that keeps the size and sets the mtime back (``touch
-r``, an editor or ``git checkout`` restoring it) still moves the ctime, which no program can set. A file whose
mtime or ctime lies within ``RACY_NS`` of the scan that cached it is "racy": a second write in the same clock
tick would leave its stat unchanged, so it is hashed again next time, and until then no stat digest vouches for
the whole set (``manifest_digest``; the command that finds it equal and no longer racy writes one: ``cache.py``). Anything else is hashed. The other files (``others_digest``) are compared by
the same stat tuple, and a racy one among them marks their digest stale. tests/integration/test_index_warm.py
shows each part.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import NamedTuple

RACY_NS = 2_000_000_000
UNHASHED = ""
"""The hash of a file that ``scan_files(hashed=False)`` did not read."""


class FileStat(NamedTuple):
    """One record file as the scan saw it (``path`` relative to the ledger, POSIX separators).

    A named tuple: a command makes one per record file (10,000 at 10,000 records), and a tuple is made and
    compared several times faster than a dataclass."""

    path: str
    sha256: str
    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int
    racy: bool


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _hash_file(path: str) -> str:
    with open(path, "rb") as handle:
        return sha256_bytes(handle.read())


Stat = tuple[str, int, int, int, int]
"""``(path, size, mtime_ns, ctime_ns, ino)`` of one record file (``current_stats``)."""


def scan_files(root: Path, folders: list[str], known: dict[str, FileStat], started_ns: int, *,
               hashed: bool = True, listed: list[Stat] | None = None) -> dict[str, FileStat]:
    """Every record file (in ``record_files`` order) with its hash; ``known`` entries spare re-hashing.

    ``hashed=False`` reads no file: one not in ``known`` gets the hash '' (a build from scratch hashes the
    bytes it parses, in its workers: ``entries.load_entry``). ``listed``: the files and stats
    ``current_stats`` just took of these folders (after ``started_ns``), used as they are (each file is
    stat-ed once per command); else they are taken here."""
    if listed is None:
        _, listed = current_stats(root, folders)
    out: dict[str, FileStat] = {}
    base = str(root)
    for rel, size, mtime, ctime, ino in listed:
        cached = known.get(rel)
        racy = max(mtime, ctime) >= started_ns - RACY_NS
        if cached is not None and not cached.racy and (cached.size, cached.mtime_ns, cached.ctime_ns,
                                                       cached.ino) == (size, mtime, ctime, ino):
            out[rel] = cached if not racy else cached._replace(racy=True)  # (no new tuple for most files)
            continue
        if not hashed:
            sha = UNHASHED
        else:
            try:
                sha = _hash_file(f"{base}/{rel}")
            except FileNotFoundError:  # removed since it was listed: it is not part of this state
                continue
        out[rel] = FileStat(rel, sha, size, mtime, ctime, ino, racy)
    return out


def stat_digest(stats: Iterable[Stat]) -> str:
    """A digest of ``(path, size, mtime_ns, ctime_ns, ino)`` lines, in order."""
    text = "".join([f"{rel}\0{size}\0{mtime}\0{ctime}\0{ino}\n" for rel, size, mtime, ctime, ino in stats])
    return hashlib.sha256(text.encode()).hexdigest()


def manifest_digest(files: Iterable[FileStat]) -> str:
    """``stat_digest`` of a manifest; '' when any file is racy (its stat cannot vouch for its bytes)."""
    listed = list(files)
    if any(f.racy for f in listed):
        return ""
    return stat_digest((f.path, f.size, f.mtime_ns, f.ctime_ns, f.ino) for f in listed)


def current_stats(root: Path, folders: list[str]) -> tuple[str, list[Stat]]:
    """``stat_digest`` of the record files as they are now, and their stats (no file is read)."""
    return stats_of(folder_stats(root, folders), folders)


def stats_of(found: dict[str, list[Stat]], folders: Iterable[str]) -> tuple[str, list[Stat]]:
    """``current_stats`` of ``folders`` from ``folder_stats`` taken of them (or of more)."""
    stats = [stat for folder in sorted(folders) for stat in found.get(folder, ())]
    return stat_digest(stats), stats


def folder_stats(root: Path, folders: Iterable[str]) -> dict[str, list[Stat]]:
    """Per folder that exists, the stats of the files in it (not in its sub-folders; hidden ones left out), by
    name.

    The files are those of ``record_names``, listed here with ``os.scandir`` (one listing and one ``stat``
    per file: this runs on every command). Each folder is opened once and its files stat-ed relative to it
    (``dir_fd``): the kernel then resolves one name per file, not the whole path (10,000 at 10,000 records).
    """
    base = str(root)
    found: dict[str, list[Stat]] = {}
    stat = os.stat
    for folder in folders:
        try:
            fd = os.open(f"{base}/{folder}", os.O_RDONLY | os.O_DIRECTORY)
        except (FileNotFoundError, NotADirectoryError):
            continue
        stats: list[Stat] = []
        try:
            with os.scandir(fd) as it:
                names = sorted(e.name for e in it if not e.name.startswith(".") and e.is_file())
            for name in names:
                try:
                    st = stat(name, dir_fd=fd)
                except FileNotFoundError:
                    continue
                stats.append((f"{folder}/{name}", st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
        finally:
            os.close(fd)
        found[folder] = stats
    return found


def file_digest(path: Path) -> str:
    """sha256 of a file's bytes; '' when absent, and what is wrong when something else is in its place (a folder)
    or it cannot be read: a build reports that (``audit/waivers.py``), so a change to or from it is a change."""
    try:
        if path.is_file():
            return sha256_bytes(path.read_bytes())
        return "not a file" if path.exists() else ""
    except OSError as exc:
        return f"unreadable: {exc.strerror}"


def others_digest(root: Path, skip: set[str], records: AbstractSet[str], started_ns: int | None = None) -> str:
    """A digest of the path and stat of every other file in the ledger folder (``runs/`` data, …); '' when
    ``started_ns`` is given and a file changed within ``RACY_NS`` of it (its stat cannot vouch for its bytes).

    ``records`` are the record files (relative paths: a set, or a dict's keys), hashed apart; ``skip`` names
    top-level entries left out (the cache, files hashed by content); hidden entries are left out everywhere, and
    so are links to folders (as ``os.walk`` leaves them). Measured values are checked against such files, and a
    file in a kind folder that is not a record (a sub-folder) is seen here too. String paths and ``os.scandir``:
    this runs on every command, over every file of the ledger.
    """
    digest = hashlib.sha256()
    pending = [(str(root), "")]
    while pending:
        directory, prefix = pending.pop()
        try:
            with os.scandir(directory) as it:  # (a record file's entry is dropped here: 10,000 in benchmarks/)
                entries = sorted((e for e in it if not e.name.startswith(".") and
                                  (prefix + e.name not in records or e.is_dir())), key=lambda e: e.name)
        except OSError:  # gone or unreadable, as os.walk skips it
            continue
        folders: list[tuple[str, str]] = []
        for entry in entries:
            if not prefix and entry.name in skip:
                continue
            rel = prefix + entry.name
            try:
                if entry.is_dir():
                    if not entry.is_symlink():
                        folders.append((entry.path, rel + "/"))
                    continue
                st = entry.stat()
            except FileNotFoundError:
                continue
            if started_ns is not None and max(st.st_mtime_ns, st.st_ctime_ns) >= started_ns - RACY_NS:
                return ""
            digest.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}\n".encode())
        pending.extend(reversed(folders))  # depth first, in name order
    return digest.hexdigest()


__all__ = ["RACY_NS", "UNHASHED", "FileStat", "Stat", "current_stats", "file_digest", "folder_stats",
           "manifest_digest", "others_digest", "scan_files", "sha256_bytes", "stat_digest", "stats_of"]
