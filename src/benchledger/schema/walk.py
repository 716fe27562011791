"""Walk a record and yield every evidence-bearing value (Quantity, Known, FeatureClaim) with its dotted path."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

from pydantic import BaseModel

from benchledger.schema.provenance import Known, Quantity
from benchledger.schema.reference import FeatureClaim

EvidenceItem = Quantity | Known | FeatureClaim


def walk_evidence(node: object, path: str = "") -> Iterator[tuple[str, EvidenceItem]]:
    """``(dotted.path, item)`` for every Quantity / Known / FeatureClaim under ``node``; list items named by
    their ``name`` when they have one (arms), else by index."""
    if isinstance(node, _EVIDENCE):
        yield path, node
    if isinstance(node, BaseModel):
        prefix = f"{path}." if path else ""
        for name, value in node.__dict__.items():
            if name != "body" and not isinstance(value, _LEAVES):
                yield from walk_evidence(value, prefix + name)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            if isinstance(item, _LEAVES):
                continue
            label = getattr(item, "name", None) if isinstance(item, BaseModel) else None
            yield from walk_evidence(item, f"{path}.{label or index}")
    elif isinstance(node, dict):
        for key, item in node.items():
            if not isinstance(item, _LEAVES):
                yield from walk_evidence(item, f"{path}.{key}")


_EVIDENCE = (Quantity, Known, FeatureClaim)
_LEAVES = (str, int, float, bool, type(None), dt.date)


__all__ = ["EvidenceItem", "walk_evidence"]
