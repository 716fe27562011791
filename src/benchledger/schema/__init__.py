"""The one schema of benchledger: pure pydantic v2 models, no I/O. Imports nothing else of ours."""

from __future__ import annotations

from typing import Annotated, TypeAlias

from pydantic import BaseModel, Field, TypeAdapter

from benchledger.schema.arms import (
    LOAD_CONDITIONS,
    arm_conditions,
    effective_subject,
    effective_workload,
)
from benchledger.schema.benchmark import (
    SPEC_METHODS,
    Acceptance,
    Arm,
    Benchmark,
    PairedSpeedup,
    Parallelism,
    QuotedChange,
    Result,
    Speculative,
    Subject,
    SubjectOverride,
    Workload,
    WorkloadOverride,
)
from benchledger.schema.calibration import Calibration
from benchledger.schema.common import KIND_FOLDERS, HistoryEntry, RecordBase
from benchledger.schema.metrics import METRICS, MetricInfo, to_canonical
from benchledger.schema.provenance import (
    Condition,
    Known,
    Quantity,
    Unknown,
    condition_parts,
    condition_value,
)
from benchledger.schema.reference import (
    Accelerator,
    ComputePeak,
    Engine,
    FeatureClaim,
    Format,
    Interconnect,
    ModelArch,
)
from benchledger.schema.source import Source

Record: TypeAlias = Annotated[
    Source | Accelerator | Interconnect | Format | Engine | ModelArch | Benchmark | Calibration,
    Field(discriminator="kind"),
]
RECORD_TYPES: dict[str, type[RecordBase]] = {
    "source": Source,
    "accelerator": Accelerator,
    "interconnect": Interconnect,
    "format": Format,
    "engine": Engine,
    "model": ModelArch,
    "benchmark": Benchmark,
    "calibration": Calibration,
}
RECORD_ADAPTER: TypeAdapter[Record] = TypeAdapter(Record, config={"defer_build": True})
SCHEMA_VERSION = 1


def build_models() -> None:
    """Build now the validator and serializer of every model of the schema that has not built them yet (they are
    deferred, ``defer_build``: built on first use, in each process). A process about to fork workers builds them
    once for all (``catalog/cold.py``): the children share them."""
    pending: list[type[BaseModel]] = [BaseModel]
    while pending:
        for cls in pending.pop().__subclasses__():
            pending.append(cls)
            if cls.__module__.startswith(__name__ + ".") and not cls.__pydantic_complete__:
                cls.model_rebuild()

__all__ = [
    "KIND_FOLDERS",
    "LOAD_CONDITIONS",
    "METRICS",
    "RECORD_ADAPTER",
    "RECORD_TYPES",
    "SCHEMA_VERSION",
    "SPEC_METHODS",
    "Accelerator",
    "Acceptance",
    "Arm",
    "Benchmark",
    "Calibration",
    "ComputePeak",
    "Condition",
    "Engine",
    "FeatureClaim",
    "Format",
    "HistoryEntry",
    "Interconnect",
    "Known",
    "MetricInfo",
    "ModelArch",
    "PairedSpeedup",
    "Parallelism",
    "Quantity",
    "QuotedChange",
    "Record",
    "RecordBase",
    "Result",
    "Source",
    "Speculative",
    "Subject",
    "SubjectOverride",
    "Unknown",
    "Workload",
    "WorkloadOverride",
    "arm_conditions",
    "build_models",
    "condition_parts",
    "condition_value",
    "effective_subject",
    "effective_workload",
    "to_canonical",
]
