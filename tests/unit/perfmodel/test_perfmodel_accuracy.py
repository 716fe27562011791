"""Campaign hold-out: records sharing a source family are one campaign, and a held-out campaign's own numbers
never reach the parameters it is predicted with."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from benchledger.ledger import Ledger, write_record
from benchledger.perfmodel.accuracy import LEVELS, enough, hold_out
from benchledger.perfmodel.calibrate import observations
from benchledger.perfmodel.campaigns import campaign_of, campaigns
from benchledger.schema import Source

from ledger_builder import physics_arm as arm
from ledger_builder import physics_benchmark as benchmark
from ledger_builder import write_physics_reference as write_reference

SHA = "0" * 64


def _source(root: Path, source_id: str, url: str) -> None:
    write_record(root, Source(id=source_id, kind="source", title=source_id, url=url, source_type="github-issue",
                              retrieved="2026-11-30", sha256=SHA, body="excerpt\n"))


def _ledger(root: Path, held_out_scale: float) -> Ledger:
    write_reference(root)
    _source(root, "repo-a-issue-1", "https://github.com/Org/Repo-A/issues/1")
    _source(root, "repo-a-readme", "https://raw.githubusercontent.com/org/repo-a/main/README.md")
    _source(root, "repo-b-pr-2", "https://github.com/other/repo-b/pull/2")
    _source(root, "repo-c-pr-3", "https://github.com/third/repo-c/pull/3")
    rows = {"a1": ("repo-a-issue-1", held_out_scale), "a2": ("repo-a-readme", held_out_scale),
            "b1": ("repo-b-pr-2", 1.0), "c1": ("repo-c-pr-3", 1.1)}
    for record_id, (source, scale) in rows.items():
        arms = [arm(f"c{c}", scale * 30.0 * c ** 0.8, c, source=source) for c in (1, 4, 16)]
        arms.append(arm("c1-mtp", scale * 50.0, 1, k=3, al=2.6, baseline="c1", source=source))
        write_record(root, benchmark(record_id, arms, sources=(source,)))
    return Ledger.load(root)


def test_records_of_one_repository_are_one_campaign(tmp_path: Path) -> None:
    groups = campaigns(_ledger(tmp_path, 1.0))
    by_record = campaign_of(groups)
    assert by_record["a1"] == by_record["a2"] == "github.com/org/repo-a"
    assert by_record["b1"] == "github.com/other/repo-b"


def test_held_out_numbers_never_reach_their_own_parameters(tmp_path: Path) -> None:
    predictions = []
    for scale in (1.0, 3.0):  # the held-out campaign's measurements change threefold
        root = tmp_path / f"s{scale}"
        ledger = _ledger(root, scale)
        obs, _ = observations(ledger)
        record_campaign = campaign_of(campaigns(ledger))
        baselines = {o.ref: o.ref.split("#")[0] + "#c1" for o in obs if o.ref.endswith("mtp")}
        scored, pairs = hold_out(obs, lambda o, rc=record_campaign: rc[o.ref.split("#")[0]], baselines)
        predictions.append({s.obs.ref: s.predicted_tok_s for s in scored if s.obs.ref.startswith("a")})
        assert {s.level for s in scored if s.obs.ref.startswith("a")} == {LEVELS[0]}  # fitted on repo-b and -c
        assert len(pairs) == 4 and all(p.base.obs.ref.endswith("#c1") for p in pairs)
    assert predictions[0] == predictions[1]


def test_a_level_needs_arms_from_two_campaigns(tmp_path: Path) -> None:
    """Four arms of one campaign do not speak for a level: its setup and the hardware cannot be told apart."""
    ledger = _ledger(tmp_path, 1.0)
    obs, _ = observations(ledger)
    record_campaign = campaign_of(campaigns(ledger))
    only_b = [o for o in obs if not o.ref.startswith("c1")]  # repo-a held out: repo-b alone trains
    scored, _ = hold_out(only_b, lambda o: record_campaign[o.ref.split("#")[0]], {})
    assert {s.level for s in scored if s.obs.ref.startswith("a")} == {LEVELS[-1]}
    assert {s.training_arms for s in scored if s.obs.ref.startswith("a")} == {0}


def test_an_engine_no_other_campaign_ran_gets_the_pool_of_every_engine(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path, 1.0)
    obs, _ = observations(ledger)
    record_campaign = campaign_of(campaigns(ledger))
    renamed = [replace(o, scenario=replace(o.scenario, engine="other-engine")) if o.ref.startswith("a") else o
               for o in obs]  # repo-a's engine ran nowhere else
    scored, _ = hold_out(renamed, lambda o: record_campaign[o.ref.split("#")[0]], {})
    assert {s.level for s in scored if s.obs.ref.startswith("a")} == {"every engine"}
    assert {s.training_arms for s in scored if s.obs.ref.startswith("a")} == {8}  # repo-b and repo-c


def test_a_level_needs_three_arms_from_two_campaigns() -> None:
    arms = ["a#1", "a#2", "a#3", "b#1"]
    assert enough(arms, lambda ref: ref.split("#")[0])
    assert not enough(arms[:3], lambda ref: ref.split("#")[0])


def test_the_held_out_campaign_moves_no_training_weight(tmp_path: Path) -> None:
    """The weights of a fold's fits depend on its training campaigns only: repo-a held out with its 8 arms or with
    1 gets the same prediction for the arm they share."""
    ledger = _ledger(tmp_path, 1.0)
    obs, _ = observations(ledger)
    record_campaign = campaign_of(campaigns(ledger))
    predicted = []
    for arms in (obs, [o for o in obs if not o.ref.startswith("a") or o.ref == "a1#c1"]):
        scored, _ = hold_out(arms, lambda o: record_campaign[o.ref.split("#")[0]], {})
        predicted.append({s.obs.ref: s.predicted_tok_s for s in scored}["a1#c1"])
    assert predicted[0] == predicted[1] > 0


def test_fits_run_side_by_side_give_the_same_numbers(tmp_path: Path) -> None:
    """``workers`` only changes where the fits run: two processes score every arm exactly as one does."""
    ledger = _ledger(tmp_path, 1.5)
    obs, _ = observations(ledger)
    record_campaign = campaign_of(campaigns(ledger))
    baselines = {o.ref: o.ref.split("#")[0] + "#c1" for o in obs if o.ref.endswith("mtp")}

    def run(workers: int) -> list[tuple[str, float, str, int]]:
        scored, _ = hold_out(obs, lambda o: record_campaign[o.ref.split("#")[0]], baselines, workers)
        return [(s.obs.ref, s.predicted_tok_s, s.level, s.training_arms) for s in scored]

    one = run(1)
    assert len({level for _, _, level, _ in one}) >= 1 and len(one) == len(obs)
    assert run(2) == one
