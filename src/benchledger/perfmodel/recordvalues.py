"""The values of records that a ceiling reads (``ceiling.py``): reference records by id as model specs, and an
arm's numeric conditions. Apart from ``inputs.py`` (which re-exports them) so that computing a ceiling does not
import the prediction model (``predict``, ``roofline``, ``specdec``, the engine profiles): an index update of a
few benchmarks computes their ceilings and nothing else.
"""

from __future__ import annotations

from benchledger.ledger.rows import cnumber as number
from benchledger.ledger.rows import cvalue as text
from benchledger.ledger.store import Ledger
from benchledger.perfmodel.errors import MissingInputError
from benchledger.perfmodel.formats import FormatSpec, format_from_record
from benchledger.perfmodel.hardware import HardwareSpec, hardware_from_records
from benchledger.schema import (
    Accelerator,
    Arm,
    Benchmark,
    Format,
    Interconnect,
    effective_workload,
)


def get_record(ledger: Ledger, kind: str, record_id: str, cls: type) -> object:
    record = ledger.records.get(record_id)
    if record is None or record.kind != kind or not isinstance(record, cls):
        raise MissingInputError(record_id, "id", f"no {kind} record {record_id!r} in the ledger at {ledger.root}")
    return record


def format_spec(ledger: Ledger, format_id: str) -> FormatSpec:
    record = get_record(ledger, "format", format_id, Format)
    assert isinstance(record, Format)
    return format_from_record(record)


def hardware_spec(ledger: Ledger, accelerator_id: str, count: int = 1, links: list[str] | None = None) -> HardwareSpec:
    record = get_record(ledger, "accelerator", accelerator_id, Accelerator)
    assert isinstance(record, Accelerator)
    ids = list(links or []) + list(record.interconnects)
    found = [r for i in ids if isinstance(r := ledger.records.get(i), Interconnect)]
    return hardware_from_records(record, found, count)


def arm_concurrency(record: Benchmark, arm: Arm) -> int | None:
    wl = effective_workload(record, arm)
    value = number(wl.concurrency)
    if value is None:
        value = number(wl.batch_size)
    return None if value is None else max(int(value), 1)


__all__ = ["arm_concurrency", "format_spec", "get_record", "hardware_spec", "number", "text"]
