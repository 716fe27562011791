"""Whole files stored in a source excerpt, byte for byte, each after a line naming its path, git blob and sha256.

A source imported from a repository snapshot (``mlperf_results``) keeps every file its numbers come from in full:

    `closed/AMD/systems/X.json` · git blob `<40 hex>` · sha256 `<64 hex>`

    ~~~~text
    <the file, exactly; a final newline is part of the file>
    ~~~~

A file without a final newline gets one inside the block and `` · no final newline`` at the end of its header
line; a file with CRLF line ends is stored with LF and `` · CRLF line ends``; reading it back gives the exact bytes.

``stored_block`` writes one; ``stored_files`` reads them back, so anyone (and ``tests/unit/importers/
test_mlperf_results_sample.py``) can check that each block still hashes to the sha256 of the file in the
repository and that every quote lies inside the file its arm names. A file with carriage returns, a line
starting with ``~~~~``, a lone carriage return or a bare ``---`` line (the record delimiter) cannot be stored this way: ``storable`` says
why.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

FENCE = "~~~~"
NO_FINAL_NEWLINE = " · no final newline"
CRLF = " · CRLF line ends"
_HEADER = re.compile(r"^`(?P<path>[^`]+)` · git blob `(?P<blob>[0-9a-f]{40})` · sha256 `(?P<sha>[0-9a-f]{64})`"
                     r"(?P<crlf> · CRLF line ends)?(?P<nonl> · no final newline)?$")


@dataclass(frozen=True)
class StoredBlock:
    """One stored file as read back from an excerpt."""

    path: str
    blob: str
    sha256: str
    text: str

    @property
    def intact(self) -> bool:
        """The block's text hashes to the sha256 its header states."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest() == self.sha256


def storable(text: str) -> str | None:
    """Why ``text`` cannot be stored as a block (None when it can)."""
    if "\r" in text.replace("\r\n", "\n") or ("\r\n" in text and "\n" in text.replace("\r\n", "")):
        return "carriage returns other than consistent CRLF line ends"
    lines = text.replace("\r\n", "\n").split("\n")
    if FENCE in lines or any(line.startswith(FENCE) for line in lines):
        return f"a line starting with {FENCE}"
    if "---" in lines:
        return "a bare '---' line"
    return None


def stored_block(path: str, blob: str, sha256: str, text: str) -> str:
    """The excerpt text storing one whole file (``storable(text)`` must be None)."""
    crlf = CRLF if "\r\n" in text else ""
    inner = text.replace("\r\n", "\n")
    tail = "" if inner.endswith("\n") else NO_FINAL_NEWLINE
    inner = inner if not tail else inner + "\n"
    return f"`{path}` · git blob `{blob}` · sha256 `{sha256}`{crlf}{tail}\n\n{FENCE}text\n{inner}{FENCE}\n"


def stored_files(body: str) -> dict[str, StoredBlock]:
    """Every stored block of an excerpt by path (a path stored twice keeps its first block)."""
    out: dict[str, StoredBlock] = {}
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        match = _HEADER.match(lines[i])
        if match and i + 2 < len(lines) and lines[i + 2] == FENCE + "text":
            end = lines.index(FENCE, i + 3) if FENCE in lines[i + 3:] else len(lines)
            text = "\n".join(lines[i + 3:end]) + ("" if match["nonl"] else "\n")
            text = text.replace("\n", "\r\n") if match["crlf"] else text
            out.setdefault(match["path"], StoredBlock(match["path"], match["blob"], match["sha"], text))
            i = end + 1
        else:
            i += 1
    return out


__all__ = ["FENCE", "StoredBlock", "storable", "stored_block", "stored_files"]
