"""The seeded 50-number verbatim check shared by the bulk-import sample tests (tests/integration/*_import_sample.py):
each sampled number is written in its quote, the quote lies in the file its source stores, and that file still
hashes to the sha256 and the git blob id its header states."""

from __future__ import annotations

import hashlib
import random

import pytest

from benchledger.audit.numbers import normalise_space, value_in_text
from benchledger.importers.stored_files import StoredBlock

SEED = 16
SAMPLE = 50
Number = tuple[str, str, float, str | None, str, StoredBlock]
"""(record, field, value, unit, quote, stored file block)."""


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def check_sample(population: list[Number], what: str) -> None:
    """Fail unless ``SAMPLE`` numbers drawn with ``SEED`` from ``population`` each trace to their stored file."""
    if len(population) < SAMPLE:
        pytest.fail(f"only {len(population)} imported {what} numbers in the bundled ledger (expected ≥ {SAMPLE})")
    for rid, field, value, unit, quote, block in random.Random(SEED).sample(population, SAMPLE):
        where = f"{rid} {field}"
        assert value_in_text(value, quote, unit), f"{where}: {value} not written in {quote!r}"
        assert normalise_space(quote) in normalise_space(block.text), f"{where}: quote not in {block.path}"
        assert block.intact, f"{where}: {block.path} no longer hashes to its stated sha256"
        assert git_blob_id(block.text.encode("utf-8")) == block.blob, f"{where}: {block.path} is not git blob {block.blob}"
