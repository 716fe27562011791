"""A seeded random sample of 50 numbers imported from community llama-bench tables (issue #16): each is written in
its quote, its quote lies in the file its source stores, and that file still hashes to the sha256 and the git blob
id its header states — i.e. it is the repository's file at the pinned commit, byte for byte."""

from __future__ import annotations

from benchledger.importers.llama_bench_tables import FORMAT
from benchledger.ledger.store import Ledger
from import_sample import check_sample, imported_numbers


def test_sampled_numbers_are_in_their_quotes_and_files() -> None:
    check_sample(imported_numbers(Ledger.load(None), (FORMAT,), workload=True), "llama-bench")
