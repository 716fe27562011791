"""A seeded random sample of 50 numbers imported from device tables (issue #16: ``device-speed-tables`` and
``device-count-tables``): each is written in its quote, its quote lies in the file its source stores, and that file still hashes to the sha256 and the git blob id
its header states — i.e. it is the repository's file at the pinned commit, byte for byte."""

from __future__ import annotations

from benchledger.importers import device_count_tables, device_speed_tables
from benchledger.importers.stored_files import stored_files
from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark, Source
from import_sample import Number, check_sample

FORMATS = (device_speed_tables.FORMAT, device_count_tables.FORMAT)


def _population(ledger: Ledger) -> list[Number]:
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
    check_sample(_population(Ledger.load(None)), "device-table")
