"""Data for the site, gathered once from the DuckDB index and the loaded ``Ledger``.

``SiteData`` runs a handful of whole-table queries (comparisons, results, arms, findings, quoted changes) and
groups the rows by record id, so building 10,000 pages is one pass over dicts, not 10,000 queries. Derived
numbers (speedups) come from the index's ``comparisons`` view; this module never recomputes them.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from benchledger.ledger.duckdb_engine import duckdb
from benchledger.ledger.store import Ledger
from benchledger.schema import METRICS, Benchmark, Source
from benchledger.schema.metrics import OUTCOME_BAND

HEADLINE_METRICS: tuple[str, ...] = (
    "output_throughput", "per_stream_throughput", "total_throughput", "request_throughput",
    "tpot", "itl", "ttft", "e2e_latency", "prefill_throughput",
)
"""The headline metric of an experiment is the first of these that it reports."""
STAT_PREFERENCE: tuple[str, ...] = ("value", "mean", "median", "p50", "p90", "p95", "p99", "min", "max", "std")
NEUTRAL_BAND = OUTCOME_BAND
"""Speedups within the outcome band of 1.0 are shown as "no clear change" (``schema.metrics.OUTCOME_BAND``)."""

SEVERITIES: tuple[str, ...] = ("error", "warning", "info")


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cursor = con.execute(sql)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _by_record(rows: Sequence[dict[str, Any]], key: str = "record_id") -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        grouped[str(row[key])].append(row)
    return dict(grouped)


def effect_class(speedup: float | None) -> str:
    """CSS class and wording key for a speedup: help / hurt / flat (within the neutral band)."""
    if speedup is None:
        return "flat"
    if speedup > 1.0 + NEUTRAL_BAND:
        return "help"
    if speedup < 1.0 - NEUTRAL_BAND:
        return "hurt"
    return "flat"


def stat_rank(stat: str) -> int:
    return STAT_PREFERENCE.index(stat) if stat in STAT_PREFERENCE else len(STAT_PREFERENCE)


@dataclass
class AuditSummary:
    """Non-waived findings of one record by severity (plus waived count)."""

    counts: dict[str, int] = field(default_factory=dict)
    waived: int = 0

    @property
    def worst(self) -> str:
        return next((s for s in SEVERITIES if self.counts.get(s)), "ok")

    @property
    def text(self) -> str:
        parts = [f"{self.counts[s]} {s}{'s' if self.counts[s] > 1 else ''}" for s in SEVERITIES if self.counts.get(s)]
        return ", ".join(parts) if parts else "ok"

    @property
    def sort_key(self) -> int:
        """Errors weigh most: sorts a record with 1 error above one with 9 warnings."""
        return self.counts.get("error", 0) * 10_000 + self.counts.get("warning", 0) * 100 + self.counts.get("info", 0)


@dataclass
class SiteData:
    """Everything the pages and plots read, grouped by record id."""

    ledger: Ledger
    benchmarks: list[Benchmark]
    sources: dict[str, Source]
    arms: dict[str, list[dict[str, Any]]]
    results: dict[str, list[dict[str, Any]]]
    comparisons: dict[str, list[dict[str, Any]]]
    quoted_changes: dict[str, list[dict[str, Any]]]
    conditions: dict[str, list[dict[str, Any]]]
    findings: dict[str, list[dict[str, Any]]]
    spec_outcomes: dict[str, list[dict[str, Any]]]
    engine_evidence: dict[str, dict[str, Any]]
    physics: dict[str, dict[str, dict[str, Any]]]
    physics_note: str
    cited_by: dict[str, list[str]]
    ledger_digest: str

    def audit(self, record_id: str) -> AuditSummary:
        summary = AuditSummary()
        for f in self.findings.get(record_id, []):
            if f["waived"]:
                summary.waived += 1
            else:
                summary.counts[f["severity"]] = summary.counts.get(f["severity"], 0) + 1
        return summary

    def headline(self, record_id: str) -> tuple[str, str] | None:
        """(metric, stat) shown for this experiment, or None when it reports no results."""
        rows = self.results.get(record_id, [])
        for metric in (*HEADLINE_METRICS, *sorted({str(r["metric"]) for r in rows})):
            stats = sorted({str(r["stat"]) for r in rows if r["metric"] == metric}, key=stat_rank)
            if stats:
                return metric, stats[0]
        return None

    def best_result(self, record_id: str, metric: str, stat: str) -> dict[str, Any] | None:
        """The best arm's result for (metric, stat), in canonical units."""
        rows = [r for r in self.results.get(record_id, []) if r["metric"] == metric and r["stat"] == stat]
        if not rows:
            return None
        higher = METRICS[metric].higher_is_better if metric in METRICS else True
        return sorted(rows, key=lambda r: (-r["value_canonical"] if higher else r["value_canonical"], r["arm"]))[0]

    def speedups(self, record_id: str, metric: str, stat: str) -> list[dict[str, Any]]:
        return [c for c in self.comparisons.get(record_id, []) if c["metric"] == metric and c["stat"] == stat]


def load_site_data(ledger: Ledger, con: duckdb.DuckDBPyConnection, digest: str) -> SiteData:
    """Query the index once per view and group rows by record."""
    from benchledger.site.physics import physics_rows

    benchmarks = ledger.typed("benchmark", Benchmark)
    sources = {s.id: s for s in ledger.typed("source", Source)}
    cited_by: dict[str, list[str]] = defaultdict(list)
    for record in ledger:
        if record.kind != "source":
            for sid in dict.fromkeys(record.sources):
                cited_by[sid].append(record.id)
    physics, physics_note = physics_rows(ledger)
    return SiteData(
        ledger=ledger,
        benchmarks=benchmarks,
        sources=sources,
        arms=_by_record(_rows(con, "SELECT * FROM arms ORDER BY record_id, arm")),
        results=_by_record(_rows(con, "SELECT * FROM results ORDER BY record_id, arm, metric, stat, value")),
        comparisons=_by_record(_rows(con, "SELECT * FROM comparisons ORDER BY record_id, arm, metric, stat, unit")),
        quoted_changes=_by_record(_rows(con, "SELECT * FROM quoted_changes ORDER BY record_id, arm, metric, stat")),
        conditions=_by_record(_rows(con, "SELECT * FROM conditions ORDER BY record_id, arm, condition")),
        findings=_by_record(
            _rows(con, "SELECT * FROM findings ORDER BY record, CASE severity WHEN 'error' THEN 0 "
                       "WHEN 'warning' THEN 1 ELSE 2 END, code, field, message"),
            key="record",
        ),
        spec_outcomes=_by_record(
            _rows(con, "SELECT * FROM spec_outcomes ORDER BY engine, record_id, arm, metric, stat"), key="engine"
        ),
        engine_evidence={str(r["engine"]): r for r in _rows(con, "SELECT * FROM engine_evidence ORDER BY engine")},
        physics=physics,
        physics_note=physics_note,
        cited_by=dict(cited_by),
        ledger_digest=digest,
    )


__all__ = [
    "HEADLINE_METRICS",
    "NEUTRAL_BAND",
    "AuditSummary",
    "SiteData",
    "effect_class",
    "load_site_data",
    "stat_rank",
]
