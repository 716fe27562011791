"""No import states a weight format its weights cannot fit in: checked once for every importer, before writing.

An input's stated precision is not always the format the run streamed (MLPerf's ``weight_data_types`` may name
the checkpoint's type before quantisation; a tag may be wrong). After an importer has mapped a stated format
to a format record, ``refuse_unfit_weights`` checks each arm with ``perfmodel.memory.arm_weights_fit``
(``params_total × bytes/param`` against ``count × memory_gb``, the physical limit; the audit's
``physics.weights-do-not-fit`` is the same check). Where the weights cannot fit and the record states no offload
to host memory, the arm's weights become ``unknown: unchecked`` with a note naming what was stated and the
numbers (``unfit_note``): never a format the run cannot have used, never silently dropped. Where every arm
that inherits the record-level format fails alike, the record-level condition is replaced, else each failing
arm gets its own override.
"""

from __future__ import annotations

from collections.abc import Mapping

from benchledger.perfmodel.memory import WeightsFit, arm_weights_fit, stated_offload
from benchledger.schema import Benchmark, Known, RecordBase, SubjectOverride, Unknown
from benchledger.schema.provenance import Condition


def unfit_note(stated: Condition, fit: WeightsFit) -> str:
    """Why a stated format was not taken: what the input said (its note, else its quote) and the numbers."""
    said = f"format {fit.format}"
    if isinstance(stated, Known):
        said = stated.note or (f"{stated.quote!r} → format {fit.format}" if stated.quote else said)
    return f"stated {said}; not taken as the format the run streamed: {fit.describe()}"


def _unfit(records: Mapping[str, RecordBase], record: Benchmark) -> dict[str, WeightsFit]:
    out: dict[str, WeightsFit] = {}
    for arm in record.arms:
        fit = arm_weights_fit(records, record, arm)
        if isinstance(fit, WeightsFit) and not fit.ok and stated_offload(record, arm) is None:
            out[arm.name] = fit
    return out


def refuse_unfit_weights(records: Mapping[str, RecordBase], benchmarks: list[Benchmark]) -> int:
    """Replace, in place, every stated weight format that cannot fit (see the module docstring); ``records``:
    the reference records (the target ledger's and the import's). Returns how many arms changed."""
    changed = 0
    for record in benchmarks:
        unfit = _unfit(records, record)
        if not unfit:
            continue
        inheriting = [a for a in record.arms if a.subject is None or a.subject.weights is None]
        shared = record.subject.weights
        inherited: set[str] = set()
        if shared is not None and inheriting and all(a.name in unfit for a in inheriting):
            notes = {unfit_note(shared, unfit[a.name]) for a in inheriting}
            if len(notes) == 1:
                record.subject.weights = Unknown(unknown="unchecked", note=notes.pop())
                inherited = {a.name for a in inheriting}
        for arm in record.arms:
            if arm.name not in unfit or arm.name in inherited:
                continue
            stated = arm.subject.weights if arm.subject and arm.subject.weights is not None else record.subject.weights
            assert stated is not None  # a fit was computed from it
            if arm.subject is None:
                arm.subject = SubjectOverride()
            arm.subject.weights = Unknown(unknown="unchecked", note=unfit_note(stated, unfit[arm.name]))
        changed += len(unfit)
    return changed


__all__ = ["refuse_unfit_weights", "unfit_note"]
