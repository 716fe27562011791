"""The ledger's physical fit (``perfmodel/memory.py``): weights = params × bytes/param against count × memory
(GB read as GiB, no headroom), the reason when an input is unknown, and which texts state an offload."""

from __future__ import annotations

import pytest

from benchledger.perfmodel.memory import GIB, WeightsFit, stated_offload, weights_fit
from benchledger.schema import (
    Accelerator,
    Arm,
    Benchmark,
    Format,
    ModelArch,
    Quantity,
    RecordBase,
    Subject,
    Unknown,
    Workload,
)

U = Unknown(unknown="unchecked", note="test")


def q(value: float, unit: str) -> Quantity:
    return Quantity(value=value, unit=unit, provenance="derived", formula="test input")


def refs(params: Quantity | Unknown | None = None, memory: Quantity | Unknown | None = None,
         bytes_per_param: Quantity | Unknown | None = None) -> dict[str, RecordBase]:
    """A 70 B model, a 24 GB card and a 2-byte format unless told otherwise."""
    params = q(70, "B") if params is None else params
    memory = q(24, "GB") if memory is None else memory
    bytes_per_param = q(2, "bytes") if bytes_per_param is None else bytes_per_param
    return {
        "m": ModelArch(kind="model", id="m", title="m", name="m", hidden_size=U, layers_full_attention=U, num_heads=U,
                       num_kv_heads=U, head_dim=U, vocab_size=U, params_total=params),
        "card": Accelerator(kind="accelerator", id="card", title="c", name="c", vendor="NVIDIA", memory_gb=memory,
                            memory_bandwidth_gbs=U),
        "f": Format(kind="format", id="f", title="f", name="f", applies_to=["weights"], bits_per_element=U,
                    bytes_per_param=bytes_per_param),
    }


def test_weights_above_all_the_devices_memory_do_not_fit_and_say_the_numbers() -> None:
    fit = weights_fit(refs(), model="m", weights="f", accelerator="card", devices=2)
    assert isinstance(fit, WeightsFit) and not fit.ok
    assert fit.check.weights == 140e9 and fit.check.capacity == 2 * 24 * GIB
    assert fit.describe() == ("m's 70 B params (ledger/models/m.md) × 2 bytes/param (f, ledger/formats/f.md) = "
                              "140.0 GB, more than the 2 × 24 GB of card memory (51.5 GB even read as GiB)")
    assert weights_fit(refs(), model="m", weights="f", accelerator="card", devices=6).ok  # 140 GB ≤ 154.6 GB


def test_the_limit_is_the_gib_reading_of_the_stated_gb() -> None:
    """8.03 B at 2 bytes (16.06 GB) runs on a 16 GB card (16 GiB = 17.18 GB): not called impossible."""
    assert weights_fit(refs(params=q(8.03, "B"), memory=q(16, "GB")), model="m", weights="f", accelerator="card",
                       devices=1).ok
    assert not weights_fit(refs(params=q(8.6, "B"), memory=q(16, "GB")), model="m", weights="f", accelerator="card",
                           devices=1).ok


@pytest.mark.parametrize(("kw", "ids", "reason"), [
    ({"params": U}, {}, "m: params_total unknown"),
    ({"memory": U}, {}, "card: memory_gb unknown"),
    ({"bytes_per_param": U}, {}, "bytes_per_param"),
    ({}, {"model": "other"}, "no model record 'other'"),
    ({}, {"weights": "other"}, "no format record 'other'"),
])
def test_an_unknown_input_is_a_reason_not_a_pass(kw: dict[str, Unknown], ids: dict[str, str], reason: str) -> None:
    found = weights_fit(refs(**kw), **{"model": "m", "weights": "f", "accelerator": "card", "devices": 1, **ids})
    assert isinstance(found, str) and reason in found


@pytest.mark.parametrize(("flags", "body", "stated"), [
    ("--cpu-offload-gb 40", "", True),
    ("-ngl 99 -ot exps=CPU", "", True),
    ("--n-cpu-moe 30", "", True),
    (None, "The experts are offloaded to the CPU.", True),
    (None, "full GPU offload, flash attention", False),  # llama.cpp's words for every layer on the GPU
    ("--gpu-memory-utilization 0.9", "", False),
])
def test_which_texts_state_an_offload(flags: str | None, body: str, stated: bool) -> None:
    record = Benchmark(kind="benchmark", id="b", title="b", measured_by="third-party", body=body,
                       subject=Subject(model="m", engine="e", accelerator="card", engine_flags=flags),
                       workload=Workload(), arms=[Arm(name="a")])
    assert (stated_offload(record, record.arms[0]) is not None) is stated
