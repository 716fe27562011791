"""A seeded random sample of 50 numbers imported from community llama-bench tables (issue #16): each is written in
its quote, its quote lies in the file its source stores, and that file still hashes to the sha256 and the git blob
id its header states — i.e. it is the repository's file at the pinned commit, byte for byte."""

from __future__ import annotations

from benchledger.importers.llama_bench_tables import FORMAT
from benchledger.importers.stored_files import stored_files
from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark, Known, Source
from import_sample import Number, check_sample


def _population(ledger: Ledger) -> list[Number]:
    """(record, field, value, unit, quote, file block) of every quoted number in an imported llama-bench record."""
    out = []
    for record in ledger.typed("benchmark", Benchmark):
        if not record.history or FORMAT not in record.history[0].change:
            continue
        source = ledger.get(record.sources[0])
        assert isinstance(source, Source)
        (block,) = stored_files(source.body).values()  # one stored file per source
        for arm in record.arms:
            for i, r in enumerate(arm.results):
                assert r.quote is not None
                out.append((record.id, f"{arm.name}.results.{i}", float(r.value), r.unit, r.quote, block))
            for name in ("input_tokens", "output_tokens"):
                item = getattr(arm.workload, name) if arm.workload else None
                if isinstance(item, Known) and isinstance(item.value, int | float) and item.quote:
                    out.append((record.id, f"{arm.name}.workload.{name}", float(item.value), None, item.quote, block))
    return out


def test_sampled_numbers_are_in_their_quotes_and_files() -> None:
    check_sample(_population(Ledger.load(None)), "llama-bench")
