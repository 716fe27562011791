"""Fields every record shares: id, kind, title, sources, status, history, body."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field

from benchledger.schema.provenance import SLUG_PATTERN, StrictModel

RecordKind = Literal[
    "source", "accelerator", "interconnect", "format", "engine", "model", "benchmark", "calibration"
]
RecordStatus = Literal["draft", "reviewed", "contested"]

KIND_FOLDERS: dict[str, str] = {
    "source": "sources",
    "accelerator": "accelerators",
    "interconnect": "interconnects",
    "format": "formats",
    "engine": "engines",
    "model": "models",
    "benchmark": "benchmarks",
    "calibration": "calibrations",
}
"""Record kind → folder under the ledger root."""


class HistoryEntry(StrictModel):
    """One reviewed change to a record."""

    date: dt.date
    change: str = Field(min_length=1)
    why: str = Field(min_length=1)
    numbers_changed: bool = Field(description="False for metadata-only edits: no number changed.")


class RecordBase(StrictModel):
    """Fields shared by every record kind. ``body`` is the Markdown after the front matter."""

    id: str = Field(pattern=SLUG_PATTERN, description="Kebab-case slug; equals the file name.")
    title: str = Field(min_length=1)
    sources: list[str] = Field(default_factory=list, description="Ids of the source records this cites.")
    status: RecordStatus = "draft"
    history: list[HistoryEntry] = Field(default_factory=list)
    body: str = Field(default="", description="Markdown narrative (for a source: the stored excerpt).")


__all__ = ["KIND_FOLDERS", "HistoryEntry", "RecordBase", "RecordKind", "RecordStatus"]
