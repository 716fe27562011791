"""A context that checks only some records (``AuditContext.wanted``) finds about them exactly what a check of
the whole ledger finds, and reads no other record's evidence."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from benchledger.audit.context import AuditContext
from benchledger.audit.numbers import normalise_space
from benchledger.catalog import checking
from benchledger.ledger import Ledger
from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.schema import Source

from ledger_builder import benchmark, reference_records, source, write_all


def _faulty_records() -> list[dict[str, Any]]:
    """A valid source and benchmark plus one record per kind of fault a ``record`` check or fact catches."""
    bad_source = source("bad-source")
    bad_source["sha256"] = "0" * 64
    faults: list[dict[str, Any]] = [source(), bad_source, *reference_records(), benchmark()]

    def bench(record_id: str, mutate: Any) -> None:
        data = copy.deepcopy(benchmark(record_id))
        data["workload"]["concurrency"] = len(faults)  # (not duplicates of each other)
        mutate(data)
        faults.append(data)

    bench("changed-number", lambda d: d["arms"][1]["results"][1].update(value=24.6))
    bench("quote-elsewhere", lambda d: d["arms"][0]["results"][1].update(
        quote="| baseline (no MTP) | 1380.8 | 19.13 | +3% |"))
    bench("no-warmup", lambda d: d["workload"].pop("warmup"))
    bench("dangling", lambda d: d["subject"].update(model="no-such-model"))
    bench("no-baseline", lambda d: d["arms"][1].pop("baseline"))
    bench("secret", lambda d: d.update(body="run with --api-key sk-proj-AbCdEfGhIjKlMnOpQrStUv123\n"))
    bench("no-history", lambda d: d.update(history=[]))
    bench("unlisted", lambda d: d["arms"][0]["results"][1].update(source="bad-source"))
    bench("wrong-name", lambda d: d.update(id="named-otherwise"))
    return faults


def _findings_by_record(ledger: Ledger, ids: set[str] | None) -> dict[str, list[tuple[str, str, str, str]]]:
    found = checking.record_findings(ledger, ids, ctx=checking.wanted_context(ledger, ids))
    return {record: [(f.code, f.severity, f.field, f.message) for f in fs] for record, fs in found.items()}


def _assert_parts_equal_whole(ledger: Ledger, parts: int) -> None:
    whole = _findings_by_record(ledger, None)
    whole_facts = checking.record_facts(ledger)
    ids = sorted(ledger.records)
    for part in range(parts):
        wanted = set(ids[part::parts])
        assert _findings_by_record(ledger, wanted) == {r: fs for r, fs in whole.items() if r in wanted}
        facts = checking.record_facts(ledger, wanted, ctx=checking.wanted_context(ledger, wanted))
        assert facts == {name: {r: f for r, f in by.items() if r in wanted} for name, by in whole_facts.items()}


def test_checking_some_records_finds_what_checking_all_finds_about_them(tmp_path: Path) -> None:
    root = write_all(tmp_path / "ledger", _faulty_records())
    (root / "benchmarks" / "named-otherwise.md").rename(root / "benchmarks" / "wrong-name.md")
    ledger = Ledger.load(root)
    codes = {f[0] for fs in _findings_by_record(ledger, None).values() for f in fs}
    assert {"provenance.number-not-in-quote", "provenance.quote-not-in-source", "provenance.source-hash-mismatch",
            "conditions.missing-without-reason", "arms.spec-without-baseline", "secrets.suspected",
            "history.missing", "identity.id-not-filename"} <= codes
    for parts in (1, 3, len(ledger)):
        _assert_parts_equal_whole(ledger, parts)


def test_on_the_bundled_ledger_too() -> None:
    ledger = Ledger.load(bundled_ledger_dir())
    _assert_parts_equal_whole(ledger, 7)
    excerpts = AuditContext(ledger).excerpts  # (normalised as read)
    assert dict(excerpts) == {s.id: normalise_space(s.body) for s in ledger.typed("source", Source)}
    assert len(excerpts) == len(ledger.typed("source", Source))


def test_a_narrowed_context_reads_only_the_wanted_records_but_checks_against_all(mini_ledger: Path) -> None:
    ledger = Ledger.load(mini_ledger)
    ctx = AuditContext(ledger, wanted=frozenset({"test-bench", "no-such-id"}))
    assert [r.id for r in ctx.records] == ["test-bench"]
    assert {ev.record.id for ev in ctx.evidence()} == {"test-bench"}
    assert set(ctx.record_json) == {"test-bench"}
    assert [b.id for b in ctx.benchmarks] == ["test-bench"]
    assert "test-source" in ctx.excerpts  # (what quotes are checked against: the whole ledger)
    assert "test-bench" not in ctx.excerpts and ctx.excerpts.get("test-model") is None
    assert [r.id for r in AuditContext(ledger).records] == [r.id for r in ledger]
