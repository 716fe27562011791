"""The static site: a deterministic, offline HTML view of the ledger with plots and downloads.

``build_site(ledger_root, out)`` writes it; ``benchledger site build`` / ``site serve`` are the CLI.
"""

from __future__ import annotations

from benchledger.site.build import BuildReport, build_site

__all__ = ["BuildReport", "build_site"]
