"""Walk a record and yield every evidence-bearing value (Quantity, Known, FeatureClaim) with its dotted path."""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel

from benchledger.schema.provenance import Known, Quantity
from benchledger.schema.reference import FeatureClaim

EvidenceItem = Quantity | Known | FeatureClaim


def walk_evidence(node: object, path: str = "") -> Iterator[tuple[str, EvidenceItem]]:
    """``(dotted.path, item)`` for every Quantity / Known / FeatureClaim under ``node``; list items named by
    their ``name`` when they have one (arms), else by index."""
    if isinstance(node, Quantity | Known | FeatureClaim):
        yield path, node
    if isinstance(node, BaseModel):
        for name in type(node).model_fields:
            if name != "body":
                yield from walk_evidence(getattr(node, name), f"{path}.{name}" if path else name)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            label = getattr(item, "name", None) if isinstance(item, BaseModel) else None
            yield from walk_evidence(item, f"{path}.{label or index}")
    elif isinstance(node, dict):
        for key, item in node.items():
            yield from walk_evidence(item, f"{path}.{key}")


__all__ = ["EvidenceItem", "walk_evidence"]
