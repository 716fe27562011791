"""A seeded random sample of 50 numbers imported from device tables (issue #16: ``device-speed-tables`` and
``device-count-tables``): each is written in its quote, its quote lies in the file its source stores, and that file still hashes to the sha256 and the git blob id
its header states — i.e. it is the repository's file at the pinned commit, byte for byte."""

from __future__ import annotations

import hashlib
import random

import pytest

from benchledger.audit.numbers import normalise_space, value_in_text
from benchledger.importers import device_count_tables, device_speed_tables
from benchledger.importers.stored_files import StoredBlock, stored_files
from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark, Source

SEED = 16
SAMPLE = 50
FORMATS = (device_speed_tables.FORMAT, device_count_tables.FORMAT)


def _git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _population(ledger: Ledger) -> list[tuple[str, str, float, str | None, str, StoredBlock]]:
    """(record, field, value, unit, quote, file block) of every quoted number in a record either format imported."""
    out = []
    for record in ledger.typed("benchmark", Benchmark):
        if not record.history or not any(f in record.history[0].change for f in FORMATS):
            continue
        source = ledger.get(record.sources[0])
        assert isinstance(source, Source)
        (block,) = stored_files(source.body).values()  # one stored file per source
        for arm in record.arms:
            for i, r in enumerate(arm.results):
                assert r.quote is not None
                out.append((record.id, f"{arm.name}.results.{i}", float(r.value), r.unit, r.quote, block))
    return out


def test_sampled_numbers_are_in_their_quotes_and_files() -> None:
    population = _population(Ledger.load(None))
    if len(population) < SAMPLE:
        pytest.fail(f"only {len(population)} imported device-table numbers in the bundled ledger (expected ≥ {SAMPLE})")
    for rid, field, value, unit, quote, block in random.Random(SEED).sample(population, SAMPLE):
        where = f"{rid} {field}"
        assert value_in_text(value, quote, unit), f"{where}: {value} not written in {quote!r}"
        assert normalise_space(quote) in normalise_space(block.text), f"{where}: quote not in {block.path}"
        assert block.intact, f"{where}: {block.path} no longer hashes to its stated sha256"
        assert _git_blob_id(block.text.encode("utf-8")) == block.blob, f"{where}: {block.path} is not git blob {block.blob}"
