"""Reference data is canonical: one spelling per vendor, integer peaks in TOPS (schema validators)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from benchledger.ledger import Ledger
from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.schema import Accelerator
from benchledger.schema.reference import ComputePeak

from ledger_builder import physics_quantity


def accelerator(vendor: str, *peaks: tuple[str, str]) -> Accelerator:
    data: dict[str, Any] = {"id": "x", "kind": "accelerator", "title": "x", "name": "x", "vendor": vendor,
                            "memory_gb": physics_quantity(24, "GB"), "memory_bandwidth_gbs": physics_quantity(1, "GB/s")}
    data["compute"] = [ComputePeak(precision=p, tflops=physics_quantity(100, u), dense=True) for p, u in peaks]
    return Accelerator(**data)


@pytest.mark.parametrize("vendor", ["amd", "nvidia", "Nvidia", "apple", "INTEL"])
def test_a_known_vendor_in_another_spelling_is_refused(vendor: str) -> None:
    with pytest.raises(ValidationError, match="is spelled"):
        accelerator(vendor)


def test_canonical_and_unknown_vendors_load() -> None:
    assert accelerator("NVIDIA").vendor == "NVIDIA"
    assert accelerator("Tenstorrent").vendor == "Tenstorrent"


@pytest.mark.parametrize(("precision", "unit"), [("int8", "TFLOP/s"), ("int4", "TFLOP/s"), ("bf16", "TOPS")])
def test_peak_units_follow_the_precision(precision: str, unit: str) -> None:
    with pytest.raises(ValidationError, match="peak is in"):
        accelerator("AMD", (precision, unit))
    assert accelerator("AMD", ("int8", "TOPS"), ("fp8", "TFLOP/s")).compute[0].tflops.unit == "TOPS"


def test_the_bundled_ledger_has_one_name_per_vendor() -> None:
    ledger = Ledger.load(bundled_ledger_dir())
    assert not ledger.errors
    vendors = {a.vendor for a in ledger.typed("accelerator", Accelerator)}
    assert len({v.lower() for v in vendors}) == len(vendors)
