"""A seeded random sample of 50 numbers imported from the MLPerf results repositories (issue #16): each is written
in its quote, its quote lies in the file its arm names, and that file, stored whole in the source, still hashes
to the sha256 and the git blob id its header states — i.e. it is the repository's file, byte for byte."""

from __future__ import annotations

from benchledger.importers.stored_files import StoredBlock, stored_files
from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark, Known, Source
from import_sample import Number, check_sample


def _population(ledger: Ledger) -> list[Number]:
    """(record, field, value, unit, quote, file block) of every number in an arm of an imported MLPerf record."""
    blocks: dict[str, dict[str, StoredBlock]] = {}
    out = []
    for record in ledger.typed("benchmark", Benchmark):
        if not record.history or "mlperf-results" not in record.history[0].change:
            continue
        source = ledger.get(record.sources[0])
        assert isinstance(source, Source)
        files = blocks.setdefault(source.id, stored_files(source.body))
        for arm in record.arms:
            block = files[arm.note.split(";")[0]]
            for i, r in enumerate(arm.results):
                assert r.quote is not None
                out.append((record.id, f"{arm.name}.results.{i}", float(r.value), r.unit, r.quote, block))
            for name in ("request_rate", "ttft_limit_ns", "tpot_limit_ns"):
                item = getattr(arm.workload, name) if arm.workload else None
                if isinstance(item, Known) and isinstance(item.value, int | float) and item.quote:
                    out.append((record.id, f"{arm.name}.workload.{name}", float(item.value), None, item.quote,
                                block))
    return out


def test_sampled_numbers_are_in_their_quotes_and_files() -> None:
    check_sample(_population(Ledger.load(None)), "MLPerf")
