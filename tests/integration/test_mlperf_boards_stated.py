"""The bundled ledger's MLPerf records of multi-GPU boards count GPUs: every record whose stored system description
names a board of ``mlperf_catalog.BOARDS`` holds the board's accelerator and the count a re-import gives from that
very file (``gpus × accelerators_per_node``, derived, its note quoting the file's lines and the board source's
text), and does not list the board source, which would join the v5.1 and v6.0 campaigns (applied to the records on 2026-12-02; before, the placeholder accelerator and an
unknown count)."""

from __future__ import annotations

from benchledger.importers import mlperf_catalog as catalog
from benchledger.importers.git_snapshot import StoredFile
from benchledger.importers.mlperf_system import SystemFile
from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark, Known, Source, Subject
from mlperf_bundled import imported_mlperf_records


def test_mlperf_records_of_multi_gpu_boards_count_their_gpus() -> None:
    ledger = Ledger.load(None)
    boards = 0
    for record, source, files in imported_mlperf_records(ledger):
        (block,) = [b for path, b in files.items() if "/systems/" in path]
        assert block.intact, block.path
        sysfile = SystemFile(StoredFile(block.path, block.blob, block.text.encode()), source.id)
        board = catalog.BOARDS.get(sysfile.get("accelerator_model_name"))
        if board is None:
            continue
        boards += 1
        expected = Subject(model="m", engine="e", accelerator="a")
        sysfile.fill_subject(expected, board)
        count = record.subject.accelerator_count
        assert record.subject.accelerator == board.accelerator, record.id
        assert isinstance(count, Known) and count == expected.accelerator_count, (record.id, count)
        assert count.value == board.gpus * int(sysfile.get("accelerators_per_node")), record.id
        assert record.sources == record.sources[:1], record.id  # reference data: never a campaign link
        stated = ledger.get(board.source)
        assert isinstance(stated, Source) and board.quote in stated.body
        lines = {ln.strip() for ln in block.text.splitlines()}
        for key in ("accelerator_model_name", "accelerators_per_node", "number_of_nodes"):
            quote = sysfile.quote(key)
            assert quote in lines and repr(quote) in count.note, (record.id, key)
    # Intel's v5.1 1x/4x and v6.0 4x "BMG-Pro-B60-Dual" systems: 6 records
    assert boards >= 6


def test_the_board_source_joins_no_campaigns() -> None:
    """The MLCommons v5.1 and the v6.0 copy's records stay two campaigns: no benchmark record cites the board
    source (``perfmodel/campaigns.py`` links records through every source they list)."""
    ledger = Ledger.load(None)
    sources = {b.source for b in catalog.BOARDS.values()}
    citing = [r.id for r in ledger.typed("benchmark", Benchmark) if sources & set(r.sources)]
    assert citing == []
