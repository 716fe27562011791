"""Names the community llama-bench tables use (``llama_bench_tables``) → ledger ids.

Only names a table actually prints are listed; anything else resolves to the import placeholders, with the stated
name kept in the record body. Hardware names are matched after ``slugify`` (case, spaces and punctuation, including
the U+2011 non-breaking hyphens some tables print, are ignored).
"""

from __future__ import annotations

from benchledger.importers.common import slugify

FAMILIES: dict[str, str] = {"llama-3": "Llama 3"}
"""Heading slug prefix → model family (the heading above a table names it, e.g. ``### LLaMA 3 🦙🦙🦙:``)."""

MODELS: dict[tuple[str, str], str] = {
    ("Llama 3", "8b"): "llama-3-8b",
    ("Llama 3", "70b"): "llama-3-70b",
}
"""(family, size as the model cell prints it) → model id."""

FORMATS: dict[str, str] = {"q4_k_m": "q4-k-m", "f16": "fp16", "q8_0": "q8-0", "q4_0": "q4-0", "bf16": "bf16",
                           "q6_k": "q6-k", "q3_k_m": "q3-k-m", "iq4_xs": "iq4-xs"}
"""llama.cpp file type as printed → format id."""

HARDWARE: dict[str, str] = {
    "3070-8gb": "nvidia-rtx-3070",
    "3080-10gb": "nvidia-rtx-3080",
    "3080-ti-12gb": "nvidia-rtx-3080-ti",
    "4070-ti-12gb": "nvidia-rtx-4070-ti",
    "4080-16gb": "nvidia-rtx-4080",
    "3090-24gb": "nvidia-rtx-3090",
    "4090-24gb": "nvidia-rtx-4090",
    "rtx-4000-ada-20gb": "nvidia-rtx-4000-ada",
    "rtx-5000-ada-32gb": "nvidia-rtx-5000-ada",
    "rtx-a6000-48gb": "nvidia-rtx-a6000",
    "rtx-6000-ada-48gb": "nvidia-rtx-6000-ada",
    "a40-48gb": "nvidia-a40",
    "l40s-48gb": "nvidia-l40s",
    "a100-pcie-80gb": "nvidia-a100-pcie-80gb",
    "a100-sxm-80gb": "nvidia-a100-sxm-80gb",
    "h100-pcie-80gb": "nvidia-h100-pcie",
    "m1-7-core-gpu-8gb": "apple-m1",
    "m1-max-32-core-gpu-64gb": "apple-m1-max",
    "m2-ultra-76-core-gpu-192gb": "apple-m2-ultra",
    "m3-max-40-core-gpu-64gb": "apple-m3-max",
}
"""Hardware cell (slugified, without its ``* N`` count) → accelerator id."""


def family(headings: list[str]) -> str | None:
    """The model family the innermost heading naming one states (None when none does)."""
    for heading in reversed(headings):
        slug = slugify(heading.lstrip("#"))
        for prefix, name in FAMILIES.items():
            if slug == prefix or slug.startswith(prefix + "-"):
                return name
    return None


def accelerator(stated: str) -> str | None:
    """The accelerator id of a hardware name as a table prints it, or None."""
    return HARDWARE.get(slugify(stated))


__all__ = ["FAMILIES", "FORMATS", "HARDWARE", "MODELS", "accelerator", "family"]
