"""Names the device speed tables print (``device_speed_tables``) → ledger ids.

Only names a table actually prints are listed; anything else resolves to the import placeholders, with the stated
name kept in the record body. Device names are matched after ``slugify`` (case, spaces and punctuation ignored).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from benchledger.importers.common import slugify


@dataclass(frozen=True)
class Device:
    """A device cell read: the accelerator id (None: no record), the backend it names, a note for the body."""

    name: str
    accelerator: str | None
    backend: str = ""
    note: str = ""


DEVICES: dict[str, Device] = {
    "nvidia-rtx-2080-ti": Device("nvidia-rtx-2080-ti", "nvidia-rtx-2080-ti"),
    "nvidia-gtx-1660-super": Device("nvidia-gtx-1660-super", "nvidia-gtx-1660-super"),
    "google-colab-t4": Device("nvidia-t4", "nvidia-t4", note="'Google Colab T4' is Colab's NVIDIA T4 runtime."),
    "intel-i7-8700": Device("intel-core-i7-8700", "intel-core-i7-8700", "cpu"),
    "intel-i7-9700": Device("intel-core-i7-9700", "intel-core-i7-9700", "cpu"),
    "amd-ryzen-9-5900hs": Device("amd-ryzen-9-5900hs", "amd-ryzen-9-5900hs", "cpu"),
    "apple-m2-cpu": Device("apple-m2", "apple-m2", "cpu", "The row runs on the M2's CPU cores."),
    "apple-m2-metal": Device("apple-m2", "apple-m2", "metal", "The row runs on the M2's GPU through Metal."),
    "apple-m1-pro-cpu": Device("apple-m1-pro", "apple-m1-pro", "cpu", "The row runs on the M1 Pro's CPU cores."),
}
"""Device cell (slugified) → what it names. A cell not listed (e.g. a vServer with no processor named) is
matched to no accelerator: the record points at the placeholder and keeps the cell."""

MODELS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^llama-2-7b", re.IGNORECASE), "llama-2-7b"),
    (re.compile(r"^llama-2-13b", re.IGNORECASE), "llama-2-13b"),
)
"""Model cell (a Hugging Face repo or model file name) → model id; chat and base checkpoints share the shape."""


@dataclass(frozen=True)
class WeightFormat:
    """The weight format a row states: the ledger format id (None: no record), the name as stated, a note."""

    id: str | None
    stated: str
    note: str


_GGML_TYPE = re.compile(r"ggmlv3\.(?P<type>[a-z0-9_]+)$", re.IGNORECASE)
GGML_TYPES: dict[str, str] = {"q2_k": "q2-k", "q4_0": "q4-0", "q8_0": "q8-0"}
"""GGML file type (the model file's suffix, lower-cased) → format id."""


def device(stated: str) -> Device:
    """What a device cell names (an unlisted cell: no accelerator, its own slug as the group name)."""
    slug = slugify(stated)
    return DEVICES.get(slug, Device(slug, None, note=f"The device cell {stated!r} names no processor of this "
                                                       "ledger, so the record points at the placeholder."))


def model(stated: str) -> str | None:
    """The model id of a model cell, or None."""
    return next((mid for pattern, mid in MODELS if pattern.search(stated.strip())), None)


def is_ggml(stated: str) -> bool:
    """Whether a model cell names a GGML model file (llama.cpp's format)."""
    return _GGML_TYPE.search(stated.strip()) is not None


def weight_format(model_cell: str, precision: str) -> WeightFormat:
    """The format of a row: the GGML file type when the model cell names one, else the precision column."""
    ggml = _GGML_TYPE.search(model_cell.strip())
    if ggml is not None:
        kind = ggml["type"].lower()
        return WeightFormat(GGML_TYPES.get(kind), kind, f"GGML file type {kind} in the model file name")
    bits = precision.replace(" ", "").lower()
    if bits == "4bit" and "gptq" in model_cell.lower():
        return WeightFormat("int4", "gptq-4bit", "4-bit GPTQ checkpoint; its group size is not stated")
    if bits == "8bit":
        return WeightFormat("int8", "8bit", "8-bit; the quantisation method is not stated")
    if bits == "16bit":
        return WeightFormat("fp16", "16bit", "16 bit")
    return WeightFormat(None, bits or "unstated", "precision column")


__all__ = ["DEVICES", "GGML_TYPES", "MODELS", "Device", "WeightFormat", "device", "is_ggml", "model",
           "weight_format"]
