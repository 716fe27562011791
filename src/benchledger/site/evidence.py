"""What a page says about a value: conditions as known/unknown-with-reason, and every quoted number's evidence.

Pure functions over schema objects. A condition is never rendered blank: it is known (value, maybe a quote),
unknown with its reason (``source omits`` / ``unchecked``), or absent ("not recorded"), which the audit flags.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from pydantic import BaseModel

from benchledger.schema import Condition, Known, Quantity, Unknown, condition_parts

REASON_TEXT: dict[str, str] = {
    "source_omits": "unknown — the source does not say",
    "unchecked": "unknown — nobody has checked yet",
}
ABSENT_TEXT = "not recorded"


@dataclass(frozen=True)
class CondView:
    """A condition ready for display: ``status`` is known / unknown / absent."""

    status: str
    text: str
    reason: str = ""
    note: str = ""
    quote: str = ""
    source: str = ""

    @property
    def known(self) -> bool:
        return self.status == "known"

    @property
    def title(self) -> str:
        """Hover text: the reason or quote behind the value."""
        if self.status == "unknown":
            return f"{self.reason}. {self.note}".strip(". ") if self.note else self.reason
        if self.status == "absent":
            return "the record does not state this condition (the load-condition audit reports it)"
        return self.quote or self.note


def cond_view(cond: Condition | None, default_source: str = "") -> CondView:
    """Turn a schema condition into a ``CondView``."""
    status, value, reason, quote, source = condition_parts(cond)
    if status == "absent":
        return CondView(status="absent", text=ABSENT_TEXT)
    if status == "unknown":
        note = cond.note if isinstance(cond, Unknown) else ""
        text = REASON_TEXT.get(reason or "", f"unknown — {reason}")
        return CondView(status="unknown", text=text, reason=text, note=note)
    note = cond.note if isinstance(cond, Known) else ""
    return CondView(
        status="known", text=format_scalar(value), note=note, quote=quote or "",
        source=(source or default_source) if quote else "",
    )


def format_scalar(value: object) -> str:
    """A scalar as text: integers without '.0', floats with up to 6 significant digits."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.6g}"
    return "" if value is None else str(value)


def format_number(value: float | None, digits: int = 4) -> str:
    """A number for a table cell (``—`` for None)."""
    if value is None:
        return "—"
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    if math.isfinite(value) and 10**digits <= abs(value) < 1e15:
        return str(round(value))  # 13214, not 1.321e+04
    return f"{value:.{digits}g}"


@dataclass(frozen=True)
class Evidence:
    """One quoted (or measured/derived) value of a record, with where it comes from."""

    number: int
    path: str
    value: str
    unit: str
    provenance: str
    quote: str
    source: str
    detail: str = ""

    @property
    def anchor(self) -> str:
        return f"ev-{self.number}"


def collect_evidence(record: BaseModel, default_source: str) -> list[Evidence]:
    """Every Quantity and every quoted Known in the record, in field order, numbered from 1."""
    found: list[Evidence] = []
    for path, node in _walk(record, ""):
        number = len(found) + 1
        if isinstance(node, Quantity):
            if node.provenance == "quoted":
                detail = ""
            elif node.provenance == "measured":
                detail = f"run {node.run} (sha256 {node.sha256})"
            else:
                detail = f"formula {node.formula}" + (f" from {', '.join(node.inputs)}" if node.inputs else "")
            found.append(Evidence(
                number=number, path=path, value=format_scalar(node.value), unit=node.unit,
                provenance=node.provenance, quote=node.quote or "",
                source=(node.source or default_source) if node.provenance == "quoted" else "", detail=detail,
            ))
        elif isinstance(node, Known) and node.quote:
            found.append(Evidence(
                number=number, path=path, value=format_scalar(node.value), unit="", provenance="quoted",
                quote=node.quote, source=node.source or default_source,
            ))
    return found


def _walk(node: object, path: str) -> Iterator[tuple[str, object]]:
    if isinstance(node, Quantity | Known):
        yield path, node
        return
    if isinstance(node, BaseModel):
        for name in type(node).model_fields:
            if name == "body":
                continue
            child = getattr(node, name)
            if child is not None:
                yield from _walk(child, f"{path}.{name}" if path else name)
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from _walk(child, f"{path}[{index}]")
    elif isinstance(node, dict):
        for key in sorted(node):
            yield from _walk(node[key], f"{path}.{key}")


__all__ = [
    "ABSENT_TEXT",
    "REASON_TEXT",
    "CondView",
    "Evidence",
    "collect_evidence",
    "cond_view",
    "format_number",
    "format_scalar",
]
