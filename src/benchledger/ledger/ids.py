"""Record ids as people type them: case-insensitive where that is unambiguous, and the closest ids suggested
(with the query that lists them all) when nothing matches."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path

from benchledger.errors import LedgerError
from benchledger.ledger.store import Ledger

KIND_WORDS = {"accelerator": "hardware", "format": "format", "model": "model", "engine": "engine",
              "benchmark": "experiment", "source": "source"}


def list_query(kind: str | None) -> str:
    """The ``benchledger query`` line that lists the ids of one kind (or of every record)."""
    where = f" WHERE kind = '{kind}'" if kind else ""
    return f'benchledger query "SELECT id, title FROM records{where} ORDER BY id"'


def match_id(known: Mapping[str, str], text: str, kind: str | None, where: Path | str) -> str:
    """The id ``text`` names among ``known`` (id → kind): itself, or the one id equal to it ignoring case; of
    ``kind`` when given. ``LedgerError`` otherwise, naming up to three close ids and the query that lists them."""
    ids = [i for i, k in known.items() if kind is None or k == kind]
    if text in ids:
        return text
    folded = [i for i in ids if i.lower() == text.lower()]
    if len(folded) == 1:
        return folded[0]
    what = KIND_WORDS.get(kind or "", "record")
    if folded:
        raise LedgerError(f"{what} id {text!r} is ambiguous ignoring case: {', '.join(sorted(folded))}")
    if text in known:
        raise LedgerError(f"{text!r} is a {known[text]} record, not a {kind} record; list them: {list_query(kind)}")
    by_lower = {i.lower(): i for i in ids}
    close = difflib.get_close_matches(text.lower(), list(by_lower), n=3, cutoff=0.6)
    hint = f"did you mean {' or '.join(by_lower[c] for c in close)}? " if close else ""
    raise LedgerError(f"no {what} with id {text!r} in {where}; {hint}list them: {list_query(kind)}")


def resolve_id(ledger: Ledger, text: str, kind: str | None = None) -> str:
    """``match_id`` over the records of a loaded ledger."""
    return match_id({r.id: r.kind for r in ledger}, text, kind, ledger.root)


__all__ = ["KIND_WORDS", "list_query", "match_id", "resolve_id"]
