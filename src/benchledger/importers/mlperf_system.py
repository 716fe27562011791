"""An MLPerf system description (``systems/<system>.json``) and measurements JSON: fields with their lines.

A system of multi-GPU boards (``mlperf_catalog.BOARDS``) counts GPUs, not boards: ``gpus × accelerators_per_node``,
a derived condition whose note quotes the system's lines and the board's source.
Each condition taken from these files is quoted with its own line (``"framework": "vLLM 0.5.2",``); a field that
is not on a line of its own cannot be quoted and becomes ``unknown`` with the reason.
A measurements file that states a full-precision ``weight_data_types`` and a ``weight_transformations`` naming
quantization contradicts itself: the weights become ``unknown`` with both texts (``quantized_note``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from benchledger.errors import ImportFormatError
from benchledger.importers import mlperf_catalog as catalog
from benchledger.importers.common import known
from benchledger.importers.git_snapshot import StoredFile
from benchledger.schema import Known, Subject, SubjectOverride, Unknown
from benchledger.schema.provenance import Condition

FULL_PRECISION = ("fp16", "bf16", "fp32")
"""``weight_data_types`` (lower-cased) that name an unquantized checkpoint type."""
QUANTIZED = re.compile(r"quanti[sz]", re.IGNORECASE)
"""``weight_transformations`` text that names quantization (``quantization, affine fusion``, ``fp8 quantization
(dynamic)``); ``Yes``, ``No``, ``none``, ``UNSET`` do not."""


class JsonFile:
    """A flat JSON object and the line each key stands on."""

    def __init__(self, file: StoredFile, source_id: str) -> None:
        self.path, self.source_id = file.path, source_id
        try:
            data = json.loads(file.text)
        except ValueError as exc:
            raise ImportFormatError(file.path, "", f"not JSON ({exc})") from None
        if not isinstance(data, dict):
            raise ImportFormatError(file.path, "", "expected a JSON object")
        self.data: dict[str, Any] = data
        self.lines = file.text.splitlines()

    def get(self, key: str) -> str:
        value = self.data.get(key)
        return "" if value is None else str(value).strip()

    def quote(self, key: str) -> str | None:
        pattern = re.compile(r'^\s*"' + re.escape(key) + r'"\s*:')
        hits = [ln.strip() for ln in self.lines if pattern.match(ln)]
        return hits[0] if len(hits) == 1 else None

    def condition(self, key: str, value: str | int | float, note: str = "") -> Condition:
        quote = self.quote(key)
        if quote is None:
            return Unknown(unknown="unchecked", note=f"{key} {self.get(key)!r} is not on a line of its own in "
                           f"{self.path}")
        return known(value, quote, self.source_id, note=note)


class SystemFile(JsonFile):
    """``systems/<system>.json``: host, accelerators, framework."""

    def fill_subject(self, subject: Subject, board: catalog.Board | None = None) -> None:
        """Engine version, host and accelerator count; ``board``: the ``mlperf_catalog.BOARDS`` entry of the
        system's ``accelerator_model_name``, when the target ledger holds its source."""
        framework = self.get("framework")
        if framework:
            subject.engine_version = self.condition("framework", framework, note="MLPerf `framework` field")
        host = self.get("host_processor_model_name")
        if host:
            subject.host = self.condition("host_processor_model_name", host,
                                          note=f"host_processors_per_node {self.get('host_processors_per_node')}")
        subject.accelerator_count = self._count(board)

    def _count(self, board: catalog.Board | None) -> Condition:
        per_node, nodes = self.get("accelerators_per_node"), self.get("number_of_nodes") or "1"
        name = self.get("accelerator_model_name")
        if not per_node.isdigit() or int(per_node) == 0:
            return Unknown(unknown="unchecked", note=f"accelerators_per_node {per_node!r} "
                           f"(accelerator {name!r}): no accelerator count")
        if name not in catalog.ACCELERATORS and board is None:
            return Unknown(unknown="unchecked", note=f"{per_node} × {name!r} per node: the part is not one "
                           "ledger accelerator (a dual-GPU card, a mixed system, or unmatched)")
        if nodes != "1":
            return Unknown(unknown="unchecked", note=f"accelerators_per_node {per_node} × number_of_nodes "
                           f"{nodes}: a product, which a quoted condition cannot state")
        if board is not None:
            return self._board_count(board, int(per_node))
        return self.condition("accelerators_per_node", int(per_node), note="number_of_nodes 1")

    def _board_count(self, board: catalog.Board, per_node: int) -> Condition:
        """``board.gpus × accelerators_per_node`` GPUs: both system lines quoted verbatim in the note with the
        board source's text (a condition's quote must hold its number, and no one line states the product)."""
        lines = [self.quote(key) for key in ("accelerator_model_name", "accelerators_per_node", "number_of_nodes")]
        if None in lines:
            return Unknown(unknown="unchecked", note=f"{per_node} × {self.get('accelerator_model_name')!r} per node "
                           f"(a board of {board.gpus} GPUs): a field is not on a line of its own in {self.path}")
        count = board.gpus * per_node
        return Known(value=count, source=self.source_id,
                     note=f"derived: GPUs per board × accelerators_per_node = {board.gpus} × {per_node} = {count} "
                     f"(mlperf_catalog.BOARDS); the system description states {lines[0]!r}, {lines[1]!r} and "
                     f"{lines[2]!r}; {board.gpus} {board.accelerator} GPUs per board: source {board.source} "
                     f"{board.quote!r}")


def weights_condition(file: StoredFile, source_id: str, formats: set[str]) -> SubjectOverride:
    """The weight format an arm's measurements JSON states (``weight_data_types``), when ``formats`` (the
    target ledger's format ids) holds it and the file does not contradict it (``quantized_note``)."""
    js = JsonFile(file, source_id)
    stated = js.get("weight_data_types")
    contradicted = quantized_note(stated, js.get("weight_transformations"))
    if contradicted is not None:
        return SubjectOverride(weights=Unknown(unknown="unchecked", note=contradicted))
    fid = catalog.FORMATS.get(stated.lower())
    if fid is None or fid not in formats:
        return SubjectOverride(weights=Unknown(unknown="unchecked", note=f"weight_data_types {stated!r} "
                                               "is not one format of this ledger"))
    return SubjectOverride(weights=js.condition("weight_data_types", fid,
                                                note=f"weight_data_types {stated!r} → format {fid}"))


def quantized_note(stated: str, transformations: str) -> str | None:
    """Why a full-precision ``weight_data_types`` (``FULL_PRECISION``) is not the format the run streamed when the
    same file's ``weight_transformations`` names quantization (both quoted verbatim); None when it does not."""
    if stated.lower() not in FULL_PRECISION or not QUANTIZED.search(transformations):
        return None
    return (f"weight_data_types {stated!r} is a full-precision type, but the same measurements file states "
            f"weight_transformations {transformations!r}: the weights were quantized to a format the file does "
            "not name, so the stated type is not the format the run streamed")


__all__ = ["FULL_PRECISION", "QUANTIZED", "JsonFile", "SystemFile", "quantized_note", "weights_condition"]
