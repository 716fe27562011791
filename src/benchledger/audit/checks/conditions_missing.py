"""conditions.missing-without-reason: the seven load conditions (model, hardware, batch-or-concurrency, input
length, output length, engine version, warmup) are known or unknown with a reason, for every arm.
conditions.extra-missing (warning): weight format and parallelism; spec arms: acceptance."""

from __future__ import annotations

from collections.abc import Iterator

from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding
from benchledger.schema import LOAD_CONDITIONS, arm_conditions
from benchledger.schema.arms import EXTRA_CONDITIONS

FIELD_OF = {
    "hardware": "subject.accelerator_count",
    "batch_or_concurrency": "workload.concurrency",
    "input_tokens": "workload.input_tokens",
    "output_tokens": "workload.output_tokens",
    "engine_version": "subject.engine_version",
    "warmup": "workload.warmup",
    "weights": "subject.weights",
    "parallelism": "subject.parallelism",
    "spec_acceptance": "acceptance",
}


SCOPE = "record"  # findings of a record depend only on it and the non-benchmark records (checks/__init__)


def check(ctx: AuditContext) -> Iterator[Finding]:
    for record in ctx.benchmarks:
        missing: dict[str, list[str]] = {}
        for arm in record.arms:
            for name, cond in arm_conditions(record, arm).items():
                if cond is None:
                    missing.setdefault(name, []).append(arm.name)
        for name, arms in missing.items():
            every = len(arms) == len(record.arms)
            field = FIELD_OF.get(name, name) if every else f"arms.{','.join(arms)}.{FIELD_OF.get(name, name)}"
            scope = "any arm" if every else f"arm(s) {', '.join(arms)}"
            if name in LOAD_CONDITIONS:
                yield Finding("conditions.missing-without-reason", "error", record.id, field,
                              f"{name} is not stated for {scope}: give the value, or "
                              "'unknown: source_omits' / 'unknown: unchecked' with a note")
            elif name in EXTRA_CONDITIONS:
                yield Finding("conditions.extra-missing", "warning", record.id, field,
                              f"{name} is not stated for {scope} (known, or unknown with a reason)")
            elif name == "spec_acceptance":
                yield Finding("conditions.spec-acceptance-missing", "warning", record.id, field,
                              f"speculative {scope} state no acceptance; say in the arm note why (e.g. source omits)")
