"""The bundled ledger's MLPerf records state no weight format their own stored measurements file contradicts: an
arm's known format is never a full-precision ``weight_data_types`` whose file also says the weights were quantized
(``weight_transformations``), and every arm left unknown for that reason quotes both texts of that very file
(``importers/mlperf_system.py`` ``quantized_note``, applied to the records on 2026-12-02)."""

from __future__ import annotations

from benchledger.importers.git_snapshot import StoredFile
from benchledger.importers.mlperf_system import JsonFile, quantized_note
from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark, Known, Unknown
from mlperf_bundled import imported_mlperf_records


def test_no_mlperf_arm_states_a_format_its_measurements_file_contradicts() -> None:
    ledger = Ledger.load(None)
    contradicted = 0
    for record, source, files in imported_mlperf_records(ledger):
        for arm in record.arms:
            if "; weights from " not in arm.note:
                continue
            block = files[arm.note.split("; weights from ")[1].split(";")[0]]
            assert block.intact, block.path
            js = JsonFile(StoredFile(block.path, block.blob, block.text.encode()), source.id)
            note = quantized_note(js.get("weight_data_types"), js.get("weight_transformations"))
            own = arm.subject.weights if arm.subject and arm.subject.weights is not None else None
            weights = own if own is not None else record.subject.weights
            if note is None:
                continue
            assert not isinstance(weights, Known), (record.id, arm.name, weights)
            assert isinstance(weights, Unknown)
            # 184 arms of 93 records carry this note; 7 were already unknown because the stated type cannot fit
            # (importers/weights_fit.py), a note that names the transformation or the fit's numbers
            assert weights.note == note or "not taken as the format" in weights.note, weights.note
            contradicted += weights.note == note
    assert contradicted >= 184


def test_no_pruned_mlperf_system_claims_its_benchmarks_model() -> None:
    """A system whose name says its model was pruned (``…_DepthPruned``) runs a smaller model than the benchmark
    folder's: its record names no model record (``mlperf_catalog.model_of``), so no ceiling uses the base model's
    parameter count (llama-2-70b for both v4.1 DepthPruned records before 2026-12-02)."""
    pruned = [r for r in Ledger.load(None).typed("benchmark", Benchmark)
              if r.history and "mlperf-results" in r.history[0].change and "pruned" in r.title.split(", ")[0].lower()]
    assert len(pruned) >= 2
    assert {r.subject.model for r in pruned} == {"unknown-model"}, [(r.id, r.subject.model) for r in pruned]
