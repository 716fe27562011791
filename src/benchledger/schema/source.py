"""Source records: where quoted numbers come from, with a stored verbatim excerpt.

The Markdown body of a source file *is* the stored excerpt; ``sha256`` is the hex digest of that body
(UTF-8 bytes, exactly as stored). Every ``quote`` citing this source must appear in the excerpt.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import Field, HttpUrl

from benchledger.schema.common import RecordBase

SourceType = Literal[
    "github-issue",
    "github-pr",
    "github-discussion",
    "github-file",
    "docs",
    "vendor-page",
    "datasheet",
    "paper",
    "blog",
    "forum",
    "benchmark-page",
    "dataset",
    "run",
]


class Source(RecordBase):
    """A public document (or benchledger run) that records cite."""

    kind: Literal["source"]
    url: HttpUrl | None = Field(default=None, description="Public address of the original document.")
    source_type: SourceType
    publisher: str | None = None
    published: dt.date | None = None
    retrieved: dt.date = Field(description="Date the excerpt was stored.")
    retrieved_via: str | None = Field(default=None, description="How the text was obtained (tool, mirror, seed).")
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$", description="sha256 of the body (the stored excerpt).")


__all__ = ["Source", "SourceType"]
