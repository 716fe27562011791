"""One outcome band: the spec_outcomes view, the site and advise classify a speedup by ``OUTCOME_BAND``."""

from __future__ import annotations

from pathlib import Path

from benchledger.ledger import Ledger, write_record
from benchledger.ledger.index import build_index
from benchledger.schema.metrics import OUTCOME_BAND, spec_outcome
from benchledger.site.context import effect_class

from ledger_builder import physics_arm as arm
from ledger_builder import physics_benchmark as benchmark
from ledger_builder import write_physics_reference as write_reference


def test_view_site_and_python_share_the_band(tmp_path: Path) -> None:
    write_reference(tmp_path)
    speedups = (1.0 + OUTCOME_BAND * 1.5, 1.0 + OUTCOME_BAND * 0.5, 1.0 - OUTCOME_BAND * 0.5, 1.0 - OUTCOME_BAND * 1.5)
    arms = [arm("base", 100.0, 1)]
    arms += [arm(f"s{i}", 100.0 * s, 1, k=2, al=2.0, baseline="base") for i, s in enumerate(speedups)]
    write_record(tmp_path, benchmark("band-test", arms))
    con = build_index(Ledger.load(tmp_path))
    assert con.execute("SELECT outcome_band()").fetchone() == (OUTCOME_BAND,)
    rows = dict(con.execute("SELECT arm, outcome FROM spec_outcomes WHERE metric = 'output_throughput'").fetchall())
    expected = {f"s{i}": spec_outcome(s) for i, s in enumerate(speedups)}
    assert rows == expected
    assert list(expected.values()) == ["benefit", "no clear change", "no clear change", "harm"]
    css = {"benefit": "help", "harm": "hurt", "no clear change": "flat"}
    assert all(effect_class(s) == css[spec_outcome(s)] for s in speedups)


def test_per_chunk_itl_is_not_an_outcome(tmp_path: Path) -> None:
    """Under speculation one chunk carries several tokens: chunk gaps (itl, itl_per_token) are no speed outcome."""
    from benchledger.schema import Result

    write_reference(tmp_path)

    def itl(value: float) -> list[Result]:
        return [Result(value=value, unit="ms", provenance="quoted", quote=f"{value} ms", source="src-test",
                       metric=m, stat="median") for m in ("itl", "itl_per_token")]

    base = arm("base", 100.0, 16)
    spec = arm("spec", 81.0, 16, k=2, al=2.0, baseline="base")
    base.results.extend(itl(30.0))
    spec.results.extend(itl(0.027))
    write_record(tmp_path, benchmark("itl-test", [base, spec]))
    con = build_index(Ledger.load(tmp_path))
    rows = con.execute("SELECT metric, outcome FROM spec_outcomes ORDER BY metric").fetchall()
    assert rows == [("output_throughput", "harm")]
