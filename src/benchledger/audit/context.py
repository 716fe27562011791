"""What checks share: the ledger, normalised source excerpts, and a walk over every evidence-bearing value."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from benchledger.audit.numbers import normalise_space
from benchledger.ledger.store import Ledger
from benchledger.perfmodel.ceiling import CeilingInputs
from benchledger.perfmodel.efficiency import ArmEfficiency, record_efficiency
from benchledger.schema import Benchmark, FeatureClaim, Known, Quantity, Record, Source
from benchledger.schema.walk import walk_evidence


@dataclass(frozen=True)
class Evidence:
    """A value that carries (or should carry) evidence, found somewhere inside a record."""

    record: Record
    field: str
    item: Quantity | Known | FeatureClaim

    @property
    def source_id(self) -> str | None:
        own = self.item.source
        return own or (self.record.sources[0] if self.record.sources else None)


@dataclass
class AuditContext:
    """Input of every check."""

    ledger: Ledger
    options: dict[str, object] = field(default_factory=dict)
    _efficiency: dict[str, tuple[Benchmark, list[ArmEfficiency]]] = field(default_factory=dict, init=False,
                                                                           repr=False)

    @cached_property
    def excerpts(self) -> dict[str, str]:
        """Source id → whitespace-normalised stored excerpt."""
        return {s.id: normalise_space(s.body) for s in self.ledger.typed("source", Source)}

    @cached_property
    def benchmarks(self) -> list[Benchmark]:
        return self.ledger.typed("benchmark", Benchmark)

    @cached_property
    def record_json(self) -> dict[str, str]:
        """Record id → the record as JSON (``model_dump_json``), made once for the checks that read it whole."""
        return {r.id: r.model_dump_json() for r in self.ledger}

    @cached_property
    def ceiling_inputs(self) -> CeilingInputs:
        return CeilingInputs(self.ledger)

    def efficiency(self, record: Benchmark) -> list[ArmEfficiency]:
        """The efficiency of each arm of ``record`` against its physical ceiling, with this ledger's reference
        data (``perfmodel.efficiency.record_efficiency``); made once per record for the physics check and the
        index's ``t_efficiency`` (``catalog/cold.py``)."""
        made = self._efficiency.get(record.id)
        if made is None or made[0] is not record:
            made = self._efficiency[record.id] = (record, record_efficiency(record, self.ceiling_inputs))
        return made[1]

    def evidence(self) -> list[Evidence]:
        """Every Quantity, Known condition and FeatureClaim in every record, with its dotted field path."""
        return self._evidence

    @cached_property
    def _evidence(self) -> list[Evidence]:
        return [Evidence(record, path, item) for record in self.ledger for path, item in walk_evidence(record)]


__all__ = ["AuditContext", "Evidence"]
