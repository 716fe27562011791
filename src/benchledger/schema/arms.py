"""Pure helpers over benchmark arms: the effective subject/workload of an arm, and the load conditions."""

from __future__ import annotations

from benchledger.schema.benchmark import Arm, Benchmark, Subject, Workload
from benchledger.schema.provenance import Condition, Known, Unknown

LOAD_CONDITIONS: tuple[str, ...] = (
    "model",
    "hardware",
    "batch_or_concurrency",
    "input_tokens",
    "output_tokens",
    "engine_version",
    "warmup",
)
"""The seven conditions every benchmark must state or explain (the ``conditions`` audit checks them)."""

EXTRA_CONDITIONS: tuple[str, ...] = ("weights", "parallelism")
SPEC_CONDITIONS: tuple[str, ...] = ("spec_method", "spec_k", "spec_acceptance")


def effective_subject(record: Benchmark, arm: Arm) -> Subject:
    """The record's subject with the arm's overrides applied."""
    if arm.subject is None:
        return record.subject
    changes = arm.subject.model_dump(exclude_unset=True, exclude_none=True)
    return record.subject.model_copy(update={k: getattr(arm.subject, k) for k in changes})


def effective_workload(record: Benchmark, arm: Arm) -> Workload:
    """The record's workload with the arm's overrides applied."""
    if arm.workload is None:
        return record.workload
    changes = arm.workload.model_dump(exclude_unset=True, exclude_none=True)
    return record.workload.model_copy(update={k: getattr(arm.workload, k) for k in changes})


def arm_conditions(record: Benchmark, arm: Arm) -> dict[str, Condition | None]:
    """Every audited condition of one arm → its condition (None when the record does not state it)."""
    subject = effective_subject(record, arm)
    workload = effective_workload(record, arm)
    load = _first_stated(workload.concurrency, workload.batch_size, workload.request_rate)
    out: dict[str, Condition | None] = {
        "model": subject.model,
        "hardware": _hardware(subject),
        "batch_or_concurrency": load,
        "input_tokens": workload.input_tokens,
        "output_tokens": workload.output_tokens,
        "engine_version": subject.engine_version,
        "warmup": workload.warmup,
        "weights": subject.weights,
        "parallelism": _parallelism(subject),
    }
    if arm.speculative is not None:
        out["spec_method"] = arm.speculative.method
        out["spec_k"] = arm.speculative.k
        acc = arm.acceptance
        if acc is None:
            out["spec_acceptance"] = None
        elif acc.unknown:
            out["spec_acceptance"] = Unknown(unknown=acc.unknown, note=acc.note)
        else:
            out["spec_acceptance"] = acc.definition or "stated"
    return out


def _first_stated(*conds: Condition | None) -> Condition | None:
    """The first known condition; else the first unknown one; else None."""
    for cond in conds:
        if cond is not None and not isinstance(cond, Unknown):
            return cond
    for cond in conds:
        if cond is not None:
            return cond
    return None


def _hardware(subject: Subject) -> Condition:
    count = subject.accelerator_count
    if count is None:
        return Unknown(unknown="unchecked", note=f"{subject.accelerator}: device count not recorded")
    if isinstance(count, Unknown):
        return Unknown(unknown=count.unknown, note=f"{subject.accelerator}: device count unknown. {count.note}")
    value = count.value if isinstance(count, Known) else count
    return f"{value}x {subject.accelerator}"


def _parallelism(subject: Subject) -> Condition | None:
    par = subject.parallelism
    if par is None:
        return None
    parts = []
    for name in ("tp", "pp", "ep", "dp"):
        cond = getattr(par, name)
        if cond is None:
            continue
        if isinstance(cond, Unknown):
            return cond
        parts.append(f"{name}={cond.value if isinstance(cond, Known) else cond}")
    return ",".join(parts) if parts else None


__all__ = [
    "EXTRA_CONDITIONS",
    "LOAD_CONDITIONS",
    "SPEC_CONDITIONS",
    "arm_conditions",
    "effective_subject",
    "effective_workload",
]
