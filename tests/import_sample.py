"""The seeded 50-number verbatim check shared by the bulk-import sample tests (tests/integration/*_import_sample.py):
each sampled number is written in its quote, the quote lies in the file its source stores, and that file still
hashes to the sha256 and the git blob id its header states."""

from __future__ import annotations

import hashlib
import random

import pytest

from benchledger.audit.numbers import normalise_space, value_in_text
from benchledger.importers.stored_files import StoredBlock, stored_files
from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark, Known, Source

SEED = 16
SAMPLE = 50
Number = tuple[str, str, float, str | None, str, StoredBlock]
"""(record, field, value, unit, quote, stored file block)."""


def imported_numbers(ledger: Ledger, formats: tuple[str, ...], *, workload: bool = False) -> list[Number]:
    """(record, field, value, unit, quote, file block) of every quoted result of a benchmark record that one of
    ``formats`` created, with its workload's quoted input/output token counts when ``workload``; each such record's
    first source stores one file."""
    out: list[Number] = []
    for record in ledger.typed("benchmark", Benchmark):
        if not record.history or not any(f in record.history[0].change for f in formats):
            continue
        source = ledger.get(record.sources[0])
        assert isinstance(source, Source)
        (block,) = stored_files(source.body).values()  # one stored file per source
        for arm in record.arms:
            for i, r in enumerate(arm.results):
                assert r.quote is not None
                out.append((record.id, f"{arm.name}.results.{i}", float(r.value), r.unit, r.quote, block))
            for name in ("input_tokens", "output_tokens") if workload else ():
                item = getattr(arm.workload, name) if arm.workload else None
                if isinstance(item, Known) and isinstance(item.value, int | float) and item.quote:
                    out.append((record.id, f"{arm.name}.workload.{name}", float(item.value), None, item.quote, block))
    return out


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
