"""Evidence-first acceptance: the ledger's measured arms for model + method + k, nearest context first, with
conversions stated."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchledger.ledger import Ledger, write_record
from benchledger.perfmodel.acceptance import DEFAULT_ALPHA, choose_acceptance, iid_alpha, iid_length
from benchledger.schema import Acceptance

from ledger_builder import physics_arm as arm
from ledger_builder import physics_benchmark as benchmark
from ledger_builder import physics_quantity as q
from ledger_builder import write_physics_reference as write_reference


def _ledger(root: Path) -> Ledger:
    write_reference(root)
    short = [arm("base", 20.0, 1), arm("mtp4-a", 50.0, 1, k=4, al=4.8, baseline="base"),
             arm("mtp4-b", 30.0, 1, k=4, al=2.2, baseline="base")]
    write_record(root, benchmark("ctx1k", short, input_tokens=1000, output_tokens=0))
    rates = Acceptance(per_position=[q(0.8, "fraction"), q(0.6, "fraction"), q(0.4, "fraction")], definition="vllm per-position")
    deep = arm("mtp3", 40.0, 1, k=3, baseline="base").model_copy(update={"acceptance": rates})
    write_record(root, benchmark("ctx50k", [arm("base", 20.0, 1), arm("mtp4", 25.0, 1, k=4, al=3.9, baseline="base"),
                                            deep], input_tokens=50000, output_tokens=0))
    return Ledger.load(root)


def test_same_k_nearest_context_median_with_low_and_high(tmp_path: Path) -> None:
    choice = choose_acceptance(_ledger(tmp_path), model="qwen3.8-27b", method="mtp", k=4, context=1500)
    assert choice is not None and choice.al == pytest.approx(3.5)
    assert choice.low == (2.2, "ctx1k#mtp4-b") and choice.high == (4.8, "ctx1k#mtp4-a")
    assert choice.origin.startswith("ledger: median of 2 arm(s)") and "ctx50k" not in choice.origin
    far = choose_acceptance(_ledger(tmp_path / "b"), model="qwen3.8-27b", method="mtp", k=4, context=40000)
    assert far is not None and far.al == 3.9


def test_deeper_rates_are_truncated_and_other_k_converted(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    two = choose_acceptance(ledger, model="qwen3.8-27b", method="mtp", k=2, context=50000)
    assert two is not None and two.al == pytest.approx(1.0 + 0.8 + 0.6)
    assert "truncated from k=3" in two.origin
    six = choose_acceptance(ledger, model="qwen3.8-27b", method="mtp", k=6, context=50000)
    assert six is not None and "i.i.d." in six.origin
    assert iid_length(iid_alpha(3.9, 4), 4) == pytest.approx(3.9, abs=1e-6)


def test_no_measured_arm_falls_back_to_the_stated_default(tmp_path: Path) -> None:
    choice = choose_acceptance(_ledger(tmp_path), model="qwen3.8-27b", method="eagle3", k=3, context=1000)
    assert choice is not None and choice.al == pytest.approx(iid_length(DEFAULT_ALPHA, 3))
    assert choice.origin.startswith(f"default i.i.d. α={DEFAULT_ALPHA}: the ledger has no measured acceptance")


def test_given_acceptance_wins_over_the_ledger(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    given = choose_acceptance(ledger, model="qwen3.8-27b", method="mtp", k=4, context=1000, given_al=3.0)
    assert given is not None and (given.al, given.origin) == (3.0, "input (--acceptance-length)")
    rates = choose_acceptance(ledger, model="qwen3.8-27b", method="mtp", k=2, context=1000, rates=(0.9, 0.5, 0.2))
    assert rates is not None and rates.al == pytest.approx(2.4)
