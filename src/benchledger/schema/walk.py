"""Walk a record and yield every evidence-bearing value (Quantity, Known, FeatureClaim) with its dotted path."""

from __future__ import annotations

import datetime as dt
import enum
from typing import Annotated, Literal, cast, get_args, get_origin

from pydantic import BaseModel

from benchledger.schema.provenance import Known, Quantity
from benchledger.schema.reference import FeatureClaim

EvidenceItem = Quantity | Known | FeatureClaim


def walk_evidence(node: object, path: str = "") -> list[tuple[str, EvidenceItem]]:
    """``(dotted.path, item)`` for every Quantity / Known / FeatureClaim under ``node``, in field order; list items
    named by their ``name`` when they have one (arms), else by index. (A plain recursion into one list: the
    audit walks every record, and nested generators cost a frame per level per item. A model's fields whose
    type can hold no evidence — text, numbers, a history — are not visited: ``_fields``.)"""
    out: list[tuple[str, EvidenceItem]] = []
    _walk(node, path, out)
    return out


def _walk(node: object, path: str, out: list[tuple[str, EvidenceItem]]) -> None:
    kind = _KINDS.get(type(node)) or _kind(type(node))
    if kind & _EVIDENCE_BIT:
        out.append((path, cast(EvidenceItem, node)))  # the bit is set for the evidence types only
    if kind & _MODEL:
        prefix = f"{path}." if path else ""
        values = node.__dict__
        for name in _FIELDS.get(type(node)) or _fields(type(node)):
            value = values[name]
            if not (_KINDS.get(type(value)) or _kind(type(value))) & _LEAF:
                _walk(value, prefix + name, out)
    elif kind & _LIST:
        for index, item in enumerate(cast(list[object], node)):
            item_kind = _KINDS.get(type(item)) or _kind(type(item))
            if item_kind & _LEAF:
                continue
            label = getattr(item, "name", None) if item_kind & _MODEL else None
            _walk(item, f"{path}.{label or index}", out)
    elif kind & _DICT:
        for key, item in cast(dict[object, object], node).items():
            if not (_KINDS.get(type(item)) or _kind(type(item))) & _LEAF:
                _walk(item, f"{path}.{key}", out)


_EVIDENCE = (Quantity, Known, FeatureClaim)
_LEAVES = (str, int, float, bool, type(None), dt.date)
_LEAF, _MODEL, _LIST, _DICT, _OTHER, _EVIDENCE_BIT = 1, 2, 4, 8, 16, 32
_KINDS: dict[type, int] = {}
"""What each type met so far is to the walk (``isinstance`` by class, once per class)."""


def _kind(cls: type) -> int:
    if issubclass(cls, _LEAVES):
        kind = _LEAF
    elif issubclass(cls, BaseModel):
        kind = _MODEL
    elif issubclass(cls, list):
        kind = _LIST
    elif issubclass(cls, dict):
        kind = _DICT
    else:
        kind = _OTHER
    if issubclass(cls, _EVIDENCE):
        kind |= _EVIDENCE_BIT
    _KINDS[cls] = kind
    return kind


_FIELDS: dict[type, tuple[str, ...]] = {}
"""Model class → the fields whose declared type may hold evidence (validated models hold their declared types:
the schema validates on assignment too)."""
_PENDING: set[type] = set()


def _fields(cls: type) -> tuple[str, ...]:
    if cls not in _FIELDS:
        _PENDING.add(cls)
        try:
            fields = getattr(cls, "model_fields", {})
            _FIELDS[cls] = tuple(name for name, info in fields.items() if name != "body" and _may_hold(info.annotation))
        finally:
            _PENDING.discard(cls)
    return _FIELDS[cls]


def _may_hold(annotation: object) -> bool:
    """Whether a value of this declared type may be or contain evidence (True when unsure)."""
    if annotation in _LEAVES:
        return False
    origin = get_origin(annotation)
    if origin is Literal:
        return False
    if origin is Annotated:
        return _may_hold(get_args(annotation)[0])
    if origin is not None:  # unions, lists, tuples, dicts…: any of their arguments
        return any(_may_hold(arg) for arg in get_args(annotation) if arg is not Ellipsis) or not get_args(annotation)
    if not isinstance(annotation, type):
        return True  # Any, a forward reference, a type variable
    if issubclass(annotation, _EVIDENCE):
        return True
    if issubclass(annotation, enum.Enum | str | int | float | dt.date):
        return False
    if issubclass(annotation, BaseModel):
        return annotation in _PENDING or bool(_fields(annotation))  # a model met again inside itself: unsure
    return True


__all__ = ["EvidenceItem", "walk_evidence"]
