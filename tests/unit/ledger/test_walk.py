"""``walk_evidence`` visits only the fields whose declared type may hold evidence: on every bundled record it
finds exactly what a walk of every field finds, in the same order."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from benchledger.ledger import Ledger
from benchledger.schema import RECORD_ADAPTER, FeatureClaim, Known, Quantity
from benchledger.schema.walk import EvidenceItem, walk_evidence

from ledger_builder import benchmark

LEDGER = Path(__file__).resolve().parents[3] / "ledger"


def walk_every_field(node: object, path: str, out: list[tuple[str, EvidenceItem]]) -> None:
    """The walk before it knew field types: every field of every model, every item of every list and dict."""
    if isinstance(node, Quantity | Known | FeatureClaim):
        out.append((path, node))
    if isinstance(node, BaseModel):
        for name, value in node.__dict__.items():
            if name != "body":
                walk_every_field(value, f"{path}.{name}" if path else name, out)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            label = getattr(item, "name", None) if isinstance(item, BaseModel) else None
            walk_every_field(item, f"{path}.{label or index}", out)
    elif isinstance(node, dict):
        for key, item in node.items():
            walk_every_field(item, f"{path}.{key}", out)


def test_the_walk_finds_what_a_walk_of_every_field_finds() -> None:
    records = [*Ledger.load(LEDGER), RECORD_ADAPTER.validate_python(benchmark("synthetic"))]
    kinds = {r.kind for r in records}
    assert len(records) > 100 and {"benchmark", "source", "accelerator", "model", "engine", "format"} <= kinds
    found = 0
    for record in records:
        expected: list[tuple[str, EvidenceItem]] = []
        walk_every_field(record, "", expected)
        got = walk_evidence(record)
        assert [(p, id(i)) for p, i in got] == [(p, id(i)) for p, i in expected], record.id
        found += len(got)
    assert found > 1000
