"""Reference ids (model, engine, accelerator) for imported records, and the placeholder records behind them.

A benchmark's subject must name a model, an engine and an accelerator by ledger id. An import resolves each:

1. an explicit ``--model/--engine/--accelerator ID`` option wins; the id must exist in the target ledger;
2. else the name the input states (e.g. ``Qwen/Qwen3.8-27B``, ``vLLM``, ``NVIDIA H200-SXM-141GB``) is matched
   against the ledger's records of that kind (id, ``hf_id`` for models, ``name``, ``title``; case-insensitive,
   punctuation-insensitive);
3. else the placeholder id ``unknown-model`` / ``unknown-engine`` / ``unknown-accelerator``. The import then also
   writes that placeholder record when the ledger lacks it: a minimal record whose every number is
   ``Unknown(unchecked)``, one per kind and shared by all imports, so a reviewer finds every draft that still
   needs a real reference by one id. The stated-but-unmatched name is kept in the imported record's body.

No importer ever invents a named reference record from a free-text name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from benchledger.errors import LedgerError
from benchledger.importers.common import slugify
from benchledger.schema import Accelerator, Engine, ModelArch, RecordBase, Unknown
from benchledger.schema.common import RecordKind

PLACEHOLDER_IDS: dict[str, str] = {
    "model": "unknown-model",
    "engine": "unknown-engine",
    "accelerator": "unknown-accelerator",
}
_NOTE = "placeholder for imported records whose input names no {kind} of this ledger; replace it in review"


def _unchecked(kind: str) -> Unknown:
    return Unknown(unknown="unchecked", note=_NOTE.format(kind=kind))


def placeholder_record(kind: str) -> RecordBase:
    """The minimal reference record behind a placeholder id: every number ``Unknown(unchecked)``."""
    rid = PLACEHOLDER_IDS[kind]
    body = (f"Placeholder {kind}. Imports that cannot match the {kind} their input states to a record of this "
            f"ledger point here; each such benchmark's body names what the input stated.\n")
    if kind == "model":
        u = _unchecked("model")
        return ModelArch(kind="model", id=rid, title="Unknown model (import placeholder)", name="unknown model",
                         hidden_size=u, layers_full_attention=u, num_heads=u, num_kv_heads=u, head_dim=u,
                         vocab_size=u, params_total=u, body=body)
    if kind == "engine":
        return Engine(kind="engine", id=rid, title="Unknown engine (import placeholder)", name="unknown engine",
                      body=body)
    if kind == "accelerator":
        u = _unchecked("accelerator")
        return Accelerator(kind="accelerator", id=rid, title="Unknown accelerator (import placeholder)",
                           name="unknown accelerator", vendor="unknown", memory_gb=u, memory_bandwidth_gbs=u,
                           body=body)
    raise ValueError(f"no placeholder for kind {kind!r}")


def _norm(text: str) -> str:
    return slugify(text).replace("-", "")


@dataclass
class ReferenceResolver:
    """Resolves stated names to ledger ids; remembers which placeholders an import needs."""

    records: dict[str, RecordBase]
    overrides: dict[str, str | None] = field(default_factory=dict)
    placeholders: set[str] = field(default_factory=set)
    unmatched: list[tuple[str, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        for kind, rid in self.overrides.items():
            if rid is None:
                continue
            record = self.records.get(rid)
            if record is None or getattr(record, "kind", None) != kind:
                raise LedgerError(f"--{kind} {rid}: no {kind} record with that id in the target ledger")

    def resolve(self, kind: RecordKind, stated: str | None) -> str:
        """The ledger id for a stated name (see the module docstring for the order)."""
        override = self.overrides.get(kind)
        if override:
            return override
        if stated:
            found = self.match(kind, stated)
            if found is not None:
                return found
            self.unmatched.append((kind, stated))
        self.placeholders.add(kind)
        return PLACEHOLDER_IDS[kind]

    def match(self, kind: str, stated: str) -> str | None:
        """The id of the one record of ``kind`` whose id, hf_id, name or title matches; None if 0 or >1."""
        want = _norm(stated)
        if not want:
            return None
        hits = []
        for rid, record in self.records.items():
            if getattr(record, "kind", None) != kind:
                continue
            names = [rid, record.title, getattr(record, "name", None), getattr(record, "hf_id", None)]
            if any(n and _norm(n) == want for n in names):
                hits.append(rid)
        return hits[0] if len(hits) == 1 else None

    def existing_format(self, stated: str | None) -> str | None:
        """A format id of this ledger matching a stated weight format (e.g. ``NVFP4``), else None."""
        return self.match("format", stated) if stated else None

    def placeholder_records(self) -> list[RecordBase]:
        """Placeholder records this import needs that the ledger does not hold yet."""
        return [placeholder_record(k) for k in sorted(self.placeholders) if PLACEHOLDER_IDS[k] not in self.records]

    def take_unmatched_lines(self) -> list[str]:
        """Markdown bullets naming what the input stated but no ledger record matched (then forgets them)."""
        lines = [f"- {kind}: `{name}` (no {kind} record of the ledger matches; placeholder "
                 f"`{PLACEHOLDER_IDS[kind]}` used)" for kind, name in self.unmatched]
        self.unmatched = []
        return lines


__all__ = ["PLACEHOLDER_IDS", "ReferenceResolver", "placeholder_record"]
