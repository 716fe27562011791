"""A stored snapshot of a public git repository, read at one pinned commit (never a live download).

``Snapshot.open(path)`` takes a bare git directory (e.g. ``/work/.mirror/<owner>+<name>/repo``) or a work tree;
the commit is ``HEAD`` unless one is given (``Snapshot.open("<dir>@<commit>")`` pins one too). Every file is read from the git object store at that commit, so its
bytes are exactly those of the git blob named by ``blob`` (``git cat-file --batch`` in one process). The public
address is ``remote.origin.url`` or, for a mirror folder named ``<owner>+<name>``, ``https://github.com/owner/name``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from benchledger.errors import ImportFormatError

GIT_TIMEOUT_S = 300
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True)
class StoredFile:
    """One file of the snapshot: its path, git blob id, bytes and sha256."""

    path: str
    blob: str
    data: bytes

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")


@dataclass
class Snapshot:
    """A repository at one commit: the list of its files (path → blob id) and a reader for their bytes."""

    git_dir: Path
    commit: str
    repo_url: str
    committed: dt.date
    author: str = ""
    """The commit's author and subject line, as git records them (``%an: %s``)."""
    blobs: dict[str, str] = field(default_factory=dict)

    @classmethod
    def open(cls, path: Path | str, commit: str | None = None) -> Snapshot:
        path = Path(path)
        folder, at, rev_text = str(path).rpartition("@")
        if commit is None and at and not path.is_dir() and Path(folder).is_dir():
            path, commit = Path(folder), rev_text
        if not path.is_dir():
            raise ImportFormatError(path, "", "not a folder (expected a bare git directory or a git work tree)")
        rev = _git(path, "rev-parse", "--verify", f"{commit or 'HEAD'}^{{commit}}").strip()
        if not _COMMIT.match(rev):
            raise ImportFormatError(path, "commit", f"cannot resolve {commit or 'HEAD'!r} to a commit")
        day, _, author = _git(path, "show", "-s", "--format=%cs %an: %s", rev).strip().partition(" ")
        snap = cls(git_dir=path, commit=rev, repo_url=_repo_url(path), committed=dt.date.fromisoformat(day),
                   author=author)
        for line in _git(path, "ls-tree", "-r", "--full-tree", rev).splitlines():
            meta, _, name = line.partition("\t")
            parts = meta.split()
            if len(parts) == 3 and parts[1] == "blob":
                snap.blobs[name] = parts[2]
        return snap

    def read(self, paths: list[str]) -> dict[str, StoredFile]:
        """The files at ``paths`` (each must be in the snapshot), read in one ``git cat-file --batch``."""
        missing = [p for p in paths if p not in self.blobs]
        if missing:
            raise ImportFormatError(self.git_dir, missing[0], f"not in the snapshot at commit {self.commit}")
        wanted = list(dict.fromkeys(paths))
        request = "".join(f"{self.blobs[p]}\n" for p in wanted).encode()
        try:
            done = subprocess.run(["git", "-C", str(self.git_dir), "cat-file", "--batch"], input=request,
                                  capture_output=True, timeout=GIT_TIMEOUT_S, check=True)
        except (OSError, subprocess.SubprocessError) as exc:
            raise ImportFormatError(self.git_dir, "", f"git cat-file failed ({exc})") from None
        out, pos, files = done.stdout, 0, {}
        for name in wanted:
            end = out.index(b"\n", pos)
            header = out[pos:end].decode().split()
            if len(header) != 3 or header[0] != self.blobs[name]:
                raise ImportFormatError(self.git_dir, name, f"unexpected git cat-file answer {header!r}")
            size = int(header[2])
            files[name] = StoredFile(name, header[0], out[end + 1:end + 1 + size])
            pos = end + 1 + size + 1
        return files

    def url_of(self, path: str) -> str:
        """The public address of ``path`` at this commit (a GitHub blob/tree URL)."""
        return f"{self.repo_url}/tree/{self.commit}/{path}"


def _git(path: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", "-C", str(path), *args], capture_output=True, text=True,
                              timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        raise ImportFormatError(path, "", f"git {args[0]} failed ({exc})") from None
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise ImportFormatError(path, "", f"not a readable git snapshot: git {args[0]}: {reason}")
    return done.stdout


def _repo_url(path: Path) -> str:
    try:
        url = _git(path, "config", "--get", "remote.origin.url").strip()
    except ImportFormatError:
        url = ""
    match = re.match(r"^(?:https://github\.com/|git@github\.com:)([\w.-]+)/([\w.-]+?)(?:\.git)?/?$", url)
    if match:
        return f"https://github.com/{match.group(1)}/{match.group(2)}"
    for part in (path.resolve(), *path.resolve().parents):
        owner, plus, name = part.name.partition("+")
        if plus and owner and name:
            return f"https://github.com/{owner}/{name}"
    raise ImportFormatError(path, "remote.origin.url", "cannot tell the public repository: set remote.origin.url "
                            "or keep the mirror folder named <owner>+<name>")


__all__ = ["Snapshot", "StoredFile"]
