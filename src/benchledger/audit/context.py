"""What checks share: the ledger, normalised source excerpts, and a walk over every evidence-bearing value."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeVar

from benchledger.audit.numbers import normalise_space
from benchledger.ledger.store import Ledger
from benchledger.perfmodel.ceiling import CeilingInputs
from benchledger.perfmodel.efficiency import ArmEfficiency, record_efficiency
from benchledger.schema import Benchmark, FeatureClaim, Known, Quantity, Record, RecordBase, Source
from benchledger.schema.walk import walk_evidence

T = TypeVar("T", bound=RecordBase)


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


class Excerpts(Mapping[str, str]):
    """Source id → whitespace-normalised stored excerpt, each normalised when first read (the checks of a few
    records read a few of the ledger's excerpts: ~5 MB of text on the bundled ledger)."""

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger
        self._normalised: dict[str, str] = {}

    def __getitem__(self, source_id: str) -> str:
        found = self._normalised.get(source_id)
        if found is None:
            record = self._ledger.records.get(source_id)
            if not isinstance(record, Source):
                raise KeyError(source_id)
            found = self._normalised[source_id] = normalise_space(record.body)
        return found

    def __iter__(self) -> Iterator[str]:
        return (s.id for s in self._ledger.typed("source", Source))

    def __len__(self) -> int:
        return len(self._ledger.typed("source", Source))


@dataclass
class AuditContext:
    """Input of every check.

    ``wanted``: the ids whose findings are kept (None: every record). The per-record work of the ``record``
    checks and the ``split`` checks' facts reads ``records``, ``benchmarks``, ``evidence()`` and
    ``record_json``, which then hold only these ids; what a record is checked against (``ledger``,
    ``excerpts``, ``ceiling_inputs``) is always the whole ledger. An update checks its changed records this
    way among every other (``catalog/refresh.py``).
    """

    ledger: Ledger
    options: dict[str, object] = field(default_factory=dict)
    wanted: frozenset[str] | None = None
    _efficiency: dict[str, tuple[Benchmark, list[ArmEfficiency]]] = field(default_factory=dict, init=False,
                                                                           repr=False)

    @cached_property
    def excerpts(self) -> Excerpts:
        """Source id → whitespace-normalised stored excerpt."""
        return Excerpts(self.ledger)

    @cached_property
    def records(self) -> list[Record]:
        """The records the checks report on (the ``wanted`` ones), in ledger order (kind, then id)."""
        if self.wanted is None:
            return list(self.ledger)
        found = (self.ledger.records[i] for i in self.wanted if i in self.ledger.records)
        return sorted(found, key=lambda r: (r.kind, r.id))

    def typed(self, kind: str, cls: type[T]) -> list[T]:
        """The ``records`` of one kind as their concrete class, sorted by id (as ``Ledger.typed``)."""
        return [r for r in self.records if isinstance(r, cls) and r.kind == kind]

    @cached_property
    def benchmarks(self) -> list[Benchmark]:
        return self.typed("benchmark", Benchmark)

    @cached_property
    def record_json(self) -> dict[str, str]:
        """Record id → the record as JSON (``model_dump_json``), made once for the checks that read it whole."""
        return {r.id: r.model_dump_json() for r in self.records}

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
        return [Evidence(record, path, item) for record in self.records for path, item in walk_evidence(record)]


__all__ = ["AuditContext", "Evidence", "Excerpts"]
