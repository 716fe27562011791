"""Names the device-count tables print (``device_count_tables``) → ledger ids.

Only names a table actually prints are listed; anything else resolves to the import placeholders, with the stated
name kept in the record body. Names are matched after ``slugify`` (case, spaces and punctuation ignored).
"""

from __future__ import annotations

from benchledger.importers.common import slugify

ENGINE = "distributed-llama"
"""The tables are distributed-llama's own measurements of itself."""

MODELS: dict[str, str] = {
    "llama-2-7b": "llama-2-7b",
    "llama-2-13b": "llama-2-13b",
    "llama-2-70b": "llama-2-70b",
    "llama-3-8b": "llama-3-8b",
}
"""Model row (slugified) → model id."""

ACCELERATORS: dict[str, str] = {
    "raspi-5-8-gb": "raspberry-pi-5-8gb",
    "raspi-4b-8-gb": "raspberry-pi-4b-8gb",
    "c3d-highcpu-30": "gcp-c3d-highcpu-30",
}
"""Device as a column (or, for ``VM`` columns, the conditions line's ``VMs``) names it → accelerator id."""


WEIGHTS: dict[str, str] = {"q40": "dllama-q40"}
"""The conditions line's ``Weights = …`` (slugified) → format id: distributed-llama's own ``Q40`` block format."""


def weights(stated: str) -> str | None:
    """The format id of a ``Weights = …`` value, or None."""
    return WEIGHTS.get(slugify(stated))


def model(stated: str) -> str | None:
    """The model id of a model row, or None."""
    return MODELS.get(slugify(stated))


def accelerator(stated: str) -> str | None:
    """The accelerator id of a device name as a table prints it, or None."""
    return ACCELERATORS.get(slugify(stated))


__all__ = ["ACCELERATORS", "ENGINE", "MODELS", "WEIGHTS", "accelerator", "model", "weights"]
