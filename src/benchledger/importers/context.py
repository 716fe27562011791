"""What an importer is given: the user's options, the reference resolver of the target ledger, the plan to fill.

Also the one body every imported draft carries, saying where it came from and what a reviewer must complete.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from benchledger.importers.common import ImportOptions, InputFile
from benchledger.importers.plan import ImportPlan
from benchledger.importers.references import ReferenceResolver


@dataclass
class ImportContext:
    """One import run: options, the resolver over the target ledger's records, and the plan being built."""

    options: ImportOptions
    resolver: ReferenceResolver
    plan: ImportPlan = field(default_factory=ImportPlan)

    def sources_for_measured(self) -> list[str]:
        """Record-level ``sources`` of a measured import: the ``--source`` id when given."""
        return [self.options.source] if self.options.source else []


def draft_body(fmt: str, files: Sequence[InputFile], notes: Sequence[str], unmatched: Sequence[str]) -> str:
    """Markdown body of an imported draft: origin, mapping notes, and what still needs review."""
    lines = [f"Draft imported by `benchledger import {fmt}` from:", ""]
    lines += [f"- `{f.path.name}` (sha256 `{f.sha256}`)" for f in files]
    lines += ["", "Conditions the input does not state are recorded as `unknown: source_omits`; "
              "nothing was filled in from defaults."]
    if notes:
        lines += ["", "## How the input was mapped", ""] + [f"- {n}" for n in notes]
    if unmatched:
        lines += ["", "## Stated by the input, not yet matched to ledger records", "", *unmatched]
    return "\n".join(lines) + "\n"


__all__ = ["ImportContext", "draft_body"]
