"""Campaigns: the unit an honest accuracy study holds out.

Arms of one record, and records of one experiment series, share a setup, an author and their errors; holding out
one arm (or one source page) while its siblings stay in training flatters the model. A **campaign** is the
connected set of benchmark records that share a *source family*:

- a public source's family is its repository (``github.com/<owner>/<repo>``, also for raw/issue/PR pages and
  mirrors of it) or, off GitHub, its host (``docs.vllm.ai``);
- a record is linked to every family of the sources it cites (record ``sources`` and each result's ``source``);
- a record citing no source (a benchledger measured run) is its own campaign, ``run:<record id>``.

Records that share a family are one campaign, and so (transitively) are records linked through any family.

Each campaign falls in one of two **halves** by a hash of its id (``campaign_half``): the *development* half, whose
figures may be watched while the model is changed, and the *sealed* half, whose figures are reported beside them
so a reader can see how much watching flattered the development figures.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlparse

from benchledger.ledger.store import Ledger
from benchledger.schema import Benchmark, Source

GIT_HOSTS = {"github.com": "github.com", "raw.githubusercontent.com": "github.com",
             "gitblind.noratr.app": "github.com"}
"""Hosts whose first two path parts name a repository (mirrors map to the repository's own host)."""


@dataclass(frozen=True)
class Campaign:
    """One held-out unit: its id (the smallest family), its records and the families linking them."""

    id: str
    records: tuple[str, ...]
    families: tuple[str, ...]


def source_family(source: Source) -> str:
    """The repository (``host/owner/repo``) or host a source belongs to; ``source:<id>`` without a URL."""
    if source.url is None:
        return f"source:{source.id}"
    parsed = urlparse(str(source.url))
    host = parsed.netloc.lower().removeprefix("www.")
    parts = [p.lower() for p in parsed.path.split("/") if p]
    if host in GIT_HOSTS and len(parts) >= 2:
        return f"{GIT_HOSTS[host]}/{parts[0]}/{parts[1]}"
    return host or f"source:{source.id}"


def cited_sources(record: Benchmark) -> set[str]:
    """Every source id the record cites: its ``sources`` and each result's ``source``."""
    found = set(record.sources)
    for arm in record.arms:
        found.update(r.source for r in arm.results if r.source)
    return found


def record_families(ledger: Ledger, record: Benchmark) -> set[str]:
    families = set()
    for source_id in cited_sources(record):
        source = ledger.records.get(source_id)
        families.add(source_family(source) if isinstance(source, Source) else f"source:{source_id}")
    return families or {f"run:{record.id}"}


def campaigns(ledger: Ledger, records: Iterable[Benchmark] | None = None) -> list[Campaign]:
    """The campaigns of these records (default: every benchmark record), by connected source families."""
    chosen = list(records) if records is not None else ledger.typed("benchmark", Benchmark)
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    families = {r.id: sorted(record_families(ledger, r)) for r in chosen}
    for fams in families.values():
        for other in fams[1:]:
            parent[find(other)] = find(fams[0])
    groups: dict[str, list[str]] = {}
    for record_id, fams in families.items():
        groups.setdefault(find(fams[0]), []).append(record_id)
    out = []
    for members in groups.values():
        fams = sorted({f for m in members for f in families[m]})
        out.append(Campaign(fams[0], tuple(sorted(members)), tuple(fams)))
    return sorted(out, key=lambda c: c.id)


HALVES = ("development", "sealed")


def campaign_half(campaign_id: str) -> str:
    """``development`` when the first byte of the SHA-256 of the campaign id (UTF-8) is even, else ``sealed``: a
    fixed rule that no one picks campaigns by, and that stays put when other campaigns come or go."""
    return HALVES[hashlib.sha256(campaign_id.encode("utf-8")).digest()[0] % 2]


def campaign_of(groups: Iterable[Campaign]) -> dict[str, str]:
    """record id → campaign id."""
    return {record: c.id for c in groups for record in c.records}


__all__ = ["HALVES", "Campaign", "campaign_half", "campaign_of", "campaigns", "cited_sources", "record_families", "source_family"]
