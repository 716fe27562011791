"""Whether a configuration fits in device memory: weights + KV of every sequence + recurrent state (+ draft).

``need = P_total·b_w (+ draft weights) + B·(KV(L) + S_state)`` against ``D · M · headroom``. ``predict`` and
``advise`` use ``MEMORY_HEADROOM``: engines keep some memory for activations and their own buffers, so a config
that needs every byte does not run. The ledger's physical check (``weights_fit``: the stated weight format of a
record, used by the importers and the audit's ``physics.weights-do-not-fit``) uses no headroom: weights larger
than all the devices' memory together cannot be resident, whatever the engine (an offload to host memory is
the caller's to rule out).
Unknown device memory: the check cannot be made and says so (it is not a pass in disguise).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from benchledger.perfmodel.errors import MissingInputError
from benchledger.perfmodel.formats import format_from_record
from benchledger.perfmodel.hardware import GB
from benchledger.schema import (
    Accelerator,
    Arm,
    Benchmark,
    Condition,
    Format,
    Known,
    ModelArch,
    Quantity,
    RecordBase,
    Unknown,
    condition_value,
)

if TYPE_CHECKING:
    from benchledger.perfmodel.predict import Scenario

MEMORY_HEADROOM = 0.9
"""Share of device memory the model's weights, KV and state may use (``predict``, ``advise``)."""


@dataclass(frozen=True)
class FitCheck:
    """The memory a configuration needs, by part, against what its devices offer (bytes)."""

    weights: float
    kv: float
    state: float
    draft: float
    devices: int
    device_memory: float | None
    """Memory of one device, bytes; None when unknown."""
    headroom: float = MEMORY_HEADROOM

    @property
    def capacity(self) -> float | None:
        """``D · M``: all the devices' memory together; None when device memory is unknown."""
        return None if self.device_memory is None else self.devices * self.device_memory

    @property
    def have(self) -> float | None:
        """``D · M · headroom``; None when device memory is unknown."""
        return None if self.capacity is None else self.capacity * self.headroom

    @property
    def need(self) -> float:
        return self.weights + self.kv + self.state + self.draft

    @property
    def ok(self) -> bool:
        return self.have is None or self.need <= self.have

    def describe(self) -> str:
        only_weights = not (self.kv or self.state or self.draft)
        parts = "" if only_weights else (
            f" (weights {self.weights / GB:.1f} GB + KV {self.kv / GB:.1f} GB + state {self.state / GB:.1f} GB"
            + (f" + draft {self.draft / GB:.1f} GB" if self.draft else "") + ")")
        needs = f"needs {self.need / GB:.1f} GB{parts}"
        if self.capacity is None or self.device_memory is None:
            return f"{needs}; device memory unknown: fit not checked"
        devices = f"{self.devices} × {self.device_memory / GB:g} GB = {self.capacity / GB:.1f} GB of device memory"
        if self.headroom >= 1.0:
            return f"{needs} of {devices}"
        return f"{needs} of {self.capacity * self.headroom / GB:.1f} GB ({self.headroom:.0%} of the {devices})"


def fit_check(sc: Scenario) -> FitCheck:
    """Memory needed by ``sc`` (all sequences at ``sc.context`` tokens) against its devices' memory."""
    m = sc.model
    draft = 0.0
    if sc.spec is not None and sc.spec.draft_model is not None:
        fmt = sc.spec.draft_format or sc.weights
        draft = sc.spec.draft_model.params_total * fmt.bytes_per_param
    return FitCheck(
        weights=m.params_total * sc.weights.bytes_per_param,
        kv=sc.concurrency * m.kv_bytes_per_sequence(sc.context, sc.kv.bytes_per_param),
        state=sc.concurrency * m.recurrent_state_bytes, draft=draft, devices=sc.devices,
        device_memory=sc.hardware.memory,
    )


GIB = 1024**3
"""Bytes per GB of device memory in the ledger's physical check: vendors state device memory in binary units under
the name GB (a 16 GB card holds 16 GiB), so the check takes that, the larger reading: weights are called too big
only when no reading of the stated GB holds them."""


@dataclass(frozen=True)
class WeightsFit:
    """A stated weight format checked against the stated devices (``weights_fit``), with the ids it read."""

    model: str
    params: float
    """Total parameters (count)."""
    format: str
    bytes_per_param: float
    accelerator: str
    memory_gb: float
    """One device's memory as its record states it, GB (read as GiB, ``GIB``)."""
    check: FitCheck

    @property
    def ok(self) -> bool:
        return self.check.ok

    def describe(self) -> str:
        """E.g. ``llama-2-70b's 68.98 B params (ledger/models/llama-2-70b.md) × 4 bytes/param (fp32,
        ledger/formats/fp32.md) = 275.9 GB, more than the 2 × 24 GB of nvidia-rtx-4090 memory (51.5 GB even
        read as GiB)``."""
        c = self.check
        relation = "within" if c.ok else "more than"
        return (f"{self.model}'s {self.params / 1e9:.4g} B params (ledger/models/{self.model}.md) × "
                f"{self.bytes_per_param:g} bytes/param ({self.format}, ledger/formats/{self.format}.md) = "
                f"{c.weights / GB:.1f} GB, {relation} the {c.devices} × {self.memory_gb:g} GB of {self.accelerator} "
                f"memory ({(c.capacity or 0) / GB:.1f} GB even read as GiB)")


def weights_fit(records: Mapping[str, RecordBase], *, model: str, weights: str, accelerator: str,
                devices: int) -> WeightsFit | str:
    """Whether ``model``'s weights at format ``weights`` fit in ``devices`` × ``accelerator``'s memory (all
    parameters resident, no headroom, GB read as GiB: the physical limit), from the records of a ledger; the
    reason when an input is unknown. Unified-memory parts: their ``memory_gb`` is the whole pool
    (schema/reference.py)."""
    model_record, fmt_record, acc_record = records.get(model), records.get(weights), records.get(accelerator)
    if not isinstance(model_record, ModelArch):
        return f"no model record {model!r}"
    if not isinstance(fmt_record, Format):
        return f"no format record {weights!r}"
    if not isinstance(acc_record, Accelerator):
        return f"no accelerator record {accelerator!r}"
    if not isinstance(model_record.params_total, Quantity):
        return f"{model}: params_total unknown"
    if not isinstance(acc_record.memory_gb, Quantity):
        return f"{accelerator}: memory_gb unknown"
    try:
        bytes_per_param = format_from_record(fmt_record).bytes_per_param
    except MissingInputError as exc:
        return str(exc)
    if devices < 1:
        return f"accelerator count {devices}"
    params = float(model_record.params_total.value) * 1e9
    memory_gb = float(acc_record.memory_gb.value)
    check = FitCheck(weights=params * bytes_per_param, kv=0.0, state=0.0, draft=0.0, devices=devices,
                     device_memory=memory_gb * GIB, headroom=1.0)
    return WeightsFit(model, params, weights, bytes_per_param, accelerator, memory_gb, check)


OFFLOAD = re.compile(r"cpu[-_ ]?offload|offload[-_]gb|--n-cpu-moe\b|--cpu-moe\b|--override-tensor\b|(?<!\S)-ot(?!\S)"
                     r"|offload(?:ed|s|ing)? (?:\S+ )?to (?:the )?(?:cpu|host|system ram|ram|disk|nvme)", re.IGNORECASE)
"""Text that states weights kept off the devices (vLLM ``--cpu-offload-gb``, llama.cpp ``--n-cpu-moe`` /
``-ot``, "offloaded to CPU"). llama.cpp's "full GPU offload" (every layer on the GPU) is not one."""


def stated_offload(record: Benchmark, arm: Arm) -> str | None:
    """The text of ``record``/``arm`` that states an offload of weights to host memory or disk, else None:
    the arm's engine flags (value, quote, note), its note and the record's body."""
    flags = _stated(record, arm, "engine_flags")
    texts = [str(condition_value(flags) or "")]
    if isinstance(flags, (Known, Unknown)):
        texts += [getattr(flags, "quote", None) or "", flags.note]
    texts += [arm.note or "", record.body]
    for part in texts:
        if (hit := OFFLOAD.search(part)) is not None:
            line = next(ln for ln in part.splitlines() if hit.group(0) in ln)
            return line.strip()[:200]
    return None


def arm_weights_fit(records: Mapping[str, RecordBase], record: Benchmark, arm: Arm) -> WeightsFit | str | None:
    """``weights_fit`` of one arm's stated model, weight format, accelerator and count; None when the arm
    states no weight format (nothing to check), the reason when another input is unknown."""
    weights = condition_value(_stated(record, arm, "weights"))
    if weights is None or isinstance(weights, bool):
        return None
    devices = condition_value(_stated(record, arm, "accelerator_count"))
    if not isinstance(devices, (int, float)) or isinstance(devices, bool):
        return "accelerator count unknown"
    return weights_fit(records, model=record.subject.model, weights=str(weights),
                       accelerator=record.subject.accelerator, devices=int(devices))


def _stated(record: Benchmark, arm: Arm, name: str) -> Condition | None:
    """The arm's override of a subject condition, else the record's (``effective_subject`` without the copy: the
    audit asks this of every arm; an arm cannot change the model or the accelerator)."""
    override = getattr(arm.subject, name) if arm.subject is not None else None
    return override if override is not None else getattr(record.subject, name)  # type: ignore[no-any-return]


__all__ = ["GIB", "MEMORY_HEADROOM", "OFFLOAD", "FitCheck", "WeightsFit", "arm_weights_fit", "fit_check", "stated_offload",
           "weights_fit"]
