"""physics.weights-do-not-fit: a stated weight format whose weights cannot be held by the stated devices.

For each arm stating a weight format and a device count, ``perfmodel.memory.arm_weights_fit`` compares
``params_total × bytes/param`` with ``count × memory_gb`` (read as GiB, no headroom; unified-memory parts: their
whole pool). More is physically impossible for weights resident on the devices, so, like
``physics.above-ceiling``, it is an error (waivable with a reason in ``waivers.yaml``): the stated format is not
the one the run streamed (a pre-quantisation type, a wrong model or count). When the record states an offload to
host memory (``memory.stated_offload``) the weights need not fit: one ``physics.weights-offloaded`` info finding
says so instead. An arm whose model, format or device memory is unknown cannot be checked; its ceiling is
unknown too and ``physics.ceiling-unknown`` already says why.
"""

from __future__ import annotations

from collections.abc import Iterator

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.perfmodel.memory import WeightsFit, arm_weights_fit, stated_offload

SCOPE = "record"  # findings of a record depend only on it and the non-benchmark records (checks/__init__)


def check(ctx: AuditContext) -> Iterator[Finding]:
    for record in ctx.benchmarks:
        found: dict[tuple[str, str, str], list[str]] = {}  # (field, numbers, offload text) → arms
        for arm in record.arms:
            fit = arm_weights_fit(ctx.ledger.records, record, arm)
            if not isinstance(fit, WeightsFit) or fit.ok:
                continue
            stated_in_arm = arm.subject is not None and arm.subject.weights is not None
            field = f"arms.{arm.name}.subject.weights" if stated_in_arm else "subject.weights"
            found.setdefault((field, fit.describe(), stated_offload(record, arm) or ""), []).append(arm.name)
        for (field, numbers, offload), arms in found.items():
            where = f"arms {', '.join(arms)}"
            if offload:
                yield Finding("physics.weights-offloaded", "info", record.id, field,
                              f"the stated weights exceed the devices' memory, but the record states an offload "
                              f"({offload!r}): not checked; {numbers} ({where})")
            else:
                yield Finding("physics.weights-do-not-fit", "error", record.id, field,
                              f"the stated weights cannot be held: {numbers} ({where})")


__all__ = ["check"]
