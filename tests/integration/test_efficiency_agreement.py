"""The site, the audit and the index agree on every efficiency value of the bundled ledger (one computation)."""

from __future__ import annotations

import re

import pytest

from benchledger.audit import run_audit
from benchledger.catalog.build import build_catalog
from benchledger.ledger import Ledger
from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.schema import Benchmark
from benchledger.site.physics import physics_rows


@pytest.fixture(scope="module")
def ledger() -> Ledger:
    return Ledger.load(bundled_ledger_dir())


def test_site_audit_and_index_agree_on_every_efficiency(ledger: Ledger) -> None:
    report = run_audit(ledger)
    con = build_catalog(ledger, findings=[f.as_row() for f in report.findings])
    index = {}
    for record_id, arm, metric, stat, unit, value, pct in con.execute(
            "SELECT record_id, arm, metric, stat, unit, value, efficiency_pct FROM efficiency").fetchall():
        index[(record_id, arm, metric, stat, unit, value)] = pct
    assert len(index) > 50  # the bundled ledger has many bounded results
    # the site: each arm's headline efficiency is exactly the index's value for that result
    site, _ = physics_rows(ledger)
    shown = 0
    by_arm = {(r, a, m + ("" if s == "value" else f" {s}")): p for (r, a, m, s, _u, _v), p in index.items()}
    for record_id, arms in site.items():
        for arm, row in arms.items():
            if row["efficiency"] is None:  # no bound, or only one that gives no efficiency (concurrency unknown)
                assert all(p is None for k, p in by_arm.items() if k[:2] == (record_id, arm))
                continue
            assert row["efficiency"] == by_arm[(record_id, arm, row["efficiency_metric"])] / 100.0
            shown += 1
    assert shown > 20
    # the audit: an above-ceiling error exactly where the index says > 100 %, with the same percentage
    results = {}
    for record in ledger.typed("benchmark", Benchmark):
        for arm in record.arms:
            for i, r in enumerate(arm.results):
                results[(record.id, f"arms.{arm.name}.results.{i}")] = (arm.name, r.metric, r.stat, r.unit,
                                                                       float(r.value))
    flagged = set()
    for finding in report.findings:
        if finding.code != "physics.above-ceiling":
            continue
        arm, metric, stat, unit, value = results[(finding.record, finding.field)]
        key = (finding.record, arm, metric, stat, unit, value)
        flagged.add(key)
        match = re.search(r"\((\d+) % of the physical limit", finding.message)
        assert match and (index[key] is None or int(match.group(1)) == round(index[key]))
    assert {k for k in flagged if index[k] is not None} == {k for k, p in index.items() if p is not None and p > 100}
