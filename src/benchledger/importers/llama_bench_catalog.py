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


MODEL_HEADINGS: dict[str, str] = {
    "deepseek-r1-14b": "deepseek-r1-distill-qwen-14b",
    "deepseek-r1-671b": "deepseek-r1",
    "gpt-oss-20b": "gpt-oss-20b",
    "llama-3-2-3b": "llama-3.2-3b",
    "llama-3-1-70b": "llama-3.1-70b",
    "llama-3-1-405b": "llama-3.1-405b",
}
"""Heading above an eval-rate table (slugified) → model id (``DeepSeek R1 14b`` is the Qwen2.5-14B distill, the
only R1 model of that size)."""

DEVICES: dict[str, str] = {
    # GPUs as the System column names them in parentheses
    "nvidia-rtx-4090": "nvidia-rtx-4090", "nvidia-4090": "nvidia-rtx-4090",
    "nvidia-rtx-3080-ti": "nvidia-rtx-3080-ti",
    "nvidia-rtx-4070-ti": "nvidia-rtx-4070-ti",
    "nvidia-4070-ti-super": "nvidia-rtx-4070-ti-super",
    "nvidia-4070": "nvidia-rtx-4070",
    "nvidia-4080": "nvidia-rtx-4080",
    "nvidia-5090": "nvidia-rtx-5090",
    "nvidia-rtx-2080-ti": "nvidia-rtx-2080-ti",
    "nvidia-rtx-a4000": "nvidia-rtx-a4000", "nvidia-a4000": "nvidia-rtx-a4000",
    "nvidia-rtx-a2000": "nvidia-rtx-a2000",
    "nvidia-a400": "nvidia-rtx-a400",
    "nvidia-spark": "nvidia-gb10",
    "amd-radeon-ai-pro-r9700": "amd-radeon-ai-pro-r9700", "amd-ai-pro-r9700": "amd-radeon-ai-pro-r9700",
    "amd-pro-w7700": "amd-radeon-pro-w7700",
    "amd-7900-xt": "amd-rx-7900-xt", "amd-rx-7900-xt": "amd-rx-7900-xt",
    "amd-rx-9070-xt": "amd-rx-9070-xt",
    "amd-rx-6700-xt": "amd-rx-6700-xt",
    "amd-rx-7600": "amd-rx-7600",
    "amd-rx-6500-xt": "amd-rx-6500-xt",
    "amd-rx-580": "amd-rx-580",
    "intel-arc-b580": "intel-arc-b580",
    "intel-arc-pro-b50": "intel-arc-pro-b50",
    "intel-arc-a310-eco": "intel-arc-a310-eco",
    "m3-ultra-512gb": "apple-m3-ultra",
    # systems named whole (Apple and AMD SoCs, CPUs)
    "m1-ultra-48-gpu-core-64gb": "apple-m1-ultra",
    "m1-max-mac-studio": "apple-m1-max",
    "m4-mac-mini": "apple-m4",
    "framework-mainboard-128gb": "amd-ryzen-ai-max-395",
    "framework-desktop-mainboard-395": "amd-ryzen-ai-max-395",
    "ryzen-ai-5-340": "amd-ryzen-ai-5-340", "ryzen-ai-5-340-16gb": "amd-ryzen-ai-5-340",
    "intel-n150": "intel-n150",
    "pi-5-16gb": "raspberry-pi-5", "pi-5-8gb": "raspberry-pi-5",
    "pi-500-16gb": "raspberry-pi-500-plus",
    "pi-400-4gb": "raspberry-pi-400",
    "radxa-orion-o6-16gb": "radxa-orion-o6",
    "minisforum-ms-r1": "minisforum-ms-r1",
    "ampereone-a192-32x-512gb": "ampere-ampereone-a192-32x", "ampereone-a192-32x": "ampere-ampereone-a192-32x",
    "c2q-q8400": "intel-core-2-quad-q8400",
    "dc-roma-mainboard-ii": "deepcomputing-dc-roma-mainboard-ii",
    "hifive-premier-p550": "sifive-hifive-premier-p550",
}
"""Eval-rate System cell parts (slugified: a parenthesised GPU, the whole system, the system without its
parentheses) → accelerator id. ``Nvidia RTX 3060`` is left out: the table does not say which of its 8 GB and 12 GB
versions was used."""


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


__all__ = ["DEVICES", "FAMILIES", "FORMATS", "HARDWARE", "MODELS", "MODEL_HEADINGS", "accelerator", "family"]
