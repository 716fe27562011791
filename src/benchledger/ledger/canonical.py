"""``benchledger fmt``: which record files are not in canonical form, and which of them cannot be rewritten
without losing something (a YAML comment: the canonical dump writes none, so those files are refused, named)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchledger.ledger.frontmatter import first_comment_line, split_front_matter
from benchledger.ledger.io import atomic_write_text, dump_record, read_record_text
from benchledger.ledger.store import Ledger


@dataclass(frozen=True)
class Rewrite:
    """A record file whose bytes differ from its canonical text; ``comment_line`` (1-based) when it has comments."""

    path: Path
    text: str
    comment_line: int | None

    @property
    def refused(self) -> bool:
        return self.comment_line is not None


def plan_rewrites(ledger: Ledger) -> list[Rewrite]:
    """Every file of the ledger that a rewrite would change, in path order."""
    out: list[Rewrite] = []
    for record in ledger:
        path = ledger.paths[record.id]
        current = read_record_text(path)
        text = dump_record(record)
        if current != text:
            out.append(Rewrite(path, text, _comment_line(current)))
    return sorted(out, key=lambda r: r.path)


def apply_rewrites(rewrites: list[Rewrite]) -> list[Rewrite]:
    """Write every rewrite that loses nothing (atomically, keeping each file's mode); returns those written."""
    done = [r for r in rewrites if not r.refused]
    for rewrite in done:
        atomic_write_text(rewrite.path, rewrite.text)
    return done


def _comment_line(text: str) -> int | None:
    split = split_front_matter(text)
    if isinstance(split, str):
        return None
    line = first_comment_line(split.yaml_text)
    return None if line is None else line + split.yaml_first_line


__all__ = ["Rewrite", "apply_rewrites", "plan_rewrites"]
