"""The bundled ledger's records that the mlperf-results importer made, for the tests that re-read their stored files
(tests/integration/test_mlperf_weights_stated.py, test_mlperf_boards_stated.py)."""

from __future__ import annotations

from collections.abc import Iterator

from benchledger.importers.stored_files import StoredBlock, stored_files
from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark, Source


def imported_mlperf_records(ledger: Ledger) -> Iterator[tuple[Benchmark, Source, dict[str, StoredBlock]]]:
    """Each record the importer created, with its first source and that source's stored files by path."""
    for record in ledger.typed("benchmark", Benchmark):
        if not record.history or "mlperf-results" not in record.history[0].change:
            continue
        source = ledger.get(record.sources[0])
        assert isinstance(source, Source)
        yield record, source, stored_files(source.body)
