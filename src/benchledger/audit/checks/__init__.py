"""The registered audit checks, in run order. One check per module; add new ones here (one line each).

Each module says what its findings depend on in ``SCOPE``, so the cached index (``benchledger.catalog``)
re-runs only what a change can affect; a module without ``SCOPE`` is re-run over the whole ledger:

- ``"record"``: the findings about a record depend only on that record's file and on the ledger's
  non-benchmark records and ``runs/`` (and are about that record): re-run for changed benchmark files only.
- ``"split"``: ``facts(ctx)`` gives JSON-able facts per record id (from that record alone) and
  ``from_facts(facts_by_id, kinds)`` the findings from every record's facts and every id's kind.
- ``"files"``: reads only ``ledger.errors`` and ``ledger.duplicate_ids`` (the files that did not load).
- ``"runs"``: reads only the files under ``runs/`` (a change there rebuilds the index): run on a rebuild only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from benchledger.audit.checks import (
    arms_baseline,
    arms_speedup_acceptance,
    conditions_missing,
    contested_links,
    duplicates_records,
    history_present,
    identity_filename,
    measured_incomplete,
    physics_above_ceiling,
    physics_weights_fit,
    provenance_measured_run,
    provenance_number_in_quote,
    provenance_quote_in_source,
    provenance_quoted_change,
    provenance_source_hash,
    references_resolve,
    schema_valid,
    secrets_in_runs,
    secrets_in_text,
)
from benchledger.audit.context import AuditContext
from benchledger.audit.finding import Finding

Check = Callable[[AuditContext], Iterable[Finding]]

CHECKS: list[tuple[str, Check]] = [
    ("schema.valid", schema_valid.check),
    ("identity.filename", identity_filename.check),
    ("references.resolve", references_resolve.check),
    ("provenance.source-hash", provenance_source_hash.check),
    ("provenance.quote-in-source", provenance_quote_in_source.check),
    ("provenance.number-in-quote", provenance_number_in_quote.check),
    ("provenance.quoted-change", provenance_quoted_change.check),
    ("provenance.measured-run", provenance_measured_run.check),
    ("measured.incomplete", measured_incomplete.check),
    ("conditions.missing", conditions_missing.check),
    ("arms.baseline", arms_baseline.check),
    ("arms.speedup-acceptance", arms_speedup_acceptance.check),
    ("duplicates.records", duplicates_records.check),
    ("contested.links", contested_links.check),
    ("history.present", history_present.check),
    ("secrets.in-text", secrets_in_text.check),
    ("secrets.in-runs", secrets_in_runs.check),
    ("physics.above-ceiling", physics_above_ceiling.check),
    ("physics.weights-fit", physics_weights_fit.check),
]

__all__ = ["CHECKS", "Check"]
