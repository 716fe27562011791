"""Campaign hold-out accuracy of the physics model over the ledger's benchmark records.

Each campaign (records sharing a source family: ``src/benchledger/perfmodel/campaigns.py``) is held out in turn:
its arms are predicted with parameters fitted on the other campaigns only (``perfmodel/accuracy.py``), and
speculative arms are scored with their baselines, harmful ones included. Reports the median |error| of decode
tok/s, of TTFT and of the speedup, the share of speedups on the right side of 1.0 with benefit / harm / no clear
change counts (measured vs predicted), per hardware family, and the ten worst points with their limiting terms.

    python benchmarks/model_accuracy.py            # prints the report and rewrites docs/model-accuracy.md
    python benchmarks/model_accuracy.py --json     # the same numbers as JSON (writes nothing)
    python benchmarks/model_accuracy.py --check    # exit 1 when docs/model-accuracy.md is stale

Arms with an unknown input length or concurrency are scored at ``--assume-context`` / ``--assume-concurrency``
(default 1000 tokens and 1; offline / request-rate tables never get an assumed concurrency); every assumption is
listed per arm and none is written to the ledger. The page's prose (method notes, what was watched each round, what
the model lacks) lives in ``benchmarks/model_accuracy_notes.md``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchledger.ledger import Ledger
from benchledger.ledger.io import atomic_write_text
from benchledger.perfmodel.acceptance import measured_acceptance
from benchledger.perfmodel.accuracy import (
    LEVELS,
    Pair,
    Scored,
    ScoredPrefill,
    fit_workers,
    hold_out,
    hold_out_prefill,
    median,
    outcome_counts,
    prefill_gemm_kind,
)
from benchledger.perfmodel.calibrate import Observation, observations
from benchledger.perfmodel.calibrate_prefill import prefill_observations
from benchledger.perfmodel.campaigns import HALVES, campaign_half, campaign_of, campaigns
from benchledger.perfmodel.inputs import arm_context
from benchledger.schema import Arm, Benchmark, effective_subject
from benchledger.schema.metrics import OUTCOME_BAND, spec_outcome

NOTES = Path(__file__).with_name("model_accuracy_notes.md")
"""The page's prose that code does not compute (method notes, what was watched, what the model lacks)."""
_ITEM = re.compile(r"(\d+)\. |- ")


def page_text(path: Path = NOTES) -> dict[str, list[str]]:
    """``## name`` section → its blocks: the items of a list (``N. `` or ``- `` at the line's start, continued by
    indented lines) or the paragraphs of text (separated by blank lines); each block's lines joined by one space.
    A numbered list must count 1, 2, 3…: the rounds name its notes by number."""
    sections: dict[str, list[str]] = {}
    blocks: list[str] | None = None
    open_block = False
    text = re.sub(r"<!--.*?-->", "", path.read_text(encoding="utf-8"), flags=re.S)
    for line in text.splitlines():
        if line.startswith("## "):
            blocks = sections.setdefault(line[3:].strip(), [])
            open_block = False
        elif blocks is None or not line.strip():
            open_block = False
        elif (item := _ITEM.match(line)) is not None:
            if item.group(1) is not None and int(item.group(1)) != len(blocks) + 1:
                raise ValueError(f"{path.name}: item {item.group(1)} where {len(blocks) + 1} was expected")
            blocks.append(line[item.end():].strip())
            open_block = True
        elif open_block:
            blocks[-1] += " " + line.strip()
        else:
            blocks.append(line.strip())
            open_block = True
    return sections


DOCS = Path(__file__).resolve().parents[1] / "docs" / "model-accuracy.md"
COMMAND = "python benchmarks/model_accuracy.py"


def baselines_of(obs: list[Observation]) -> dict[str, str]:
    """``record#arm`` → ``record#baseline`` for every observed arm that names a baseline."""
    return {o.ref: o.baseline for o in obs if o.baseline is not None}


def _row(s: Scored) -> dict[str, Any]:
    return {"arm": s.obs.ref, "campaign": s.campaign, "hardware": s.obs.scenario.hardware.id, "family": s.family,
            "engine": s.obs.key[1], "metric": s.obs.metric, "measured_tok_s": round(s.measured_tok_s, 3),
            "predicted_tok_s": round(s.predicted_tok_s, 3), "abs_pct_error": round(s.abs_pct_error, 2),
            "limiting": s.prediction.limiting, "params_from": s.level, "training_arms": s.training_arms,
            "assumed": list(s.obs.assumed)}


def _pair(p: Pair) -> dict[str, Any]:
    return {"arm": p.spec.obs.ref, "baseline": p.base.obs.ref, "campaign": p.spec.campaign,
            "measured": round(p.measured, 3), "predicted": round(p.predicted, 3),
            "measured_outcome": spec_outcome(p.measured), "predicted_outcome": spec_outcome(p.predicted),
            "abs_pct_error": round(p.abs_pct_error, 2), "right_side": p.right_side,
            "limiting": p.spec.prediction.limiting, "assumed": sorted(set(p.spec.obs.assumed + p.base.obs.assumed))}


def figures(scored: list[Scored], pairs: list[Pair], pre_scored: list[ScoredPrefill]) -> dict[str, Any]:
    """The headline figures of one set of held-out predictions (all campaigns, or one half)."""
    ttft = [p for p in pre_scored if p.obs.metric == "ttft"]
    prefill_tps = [p for p in pre_scored if p.obs.metric == "prefill_throughput"]
    return {
        "campaigns_scored": len({s.campaign for s in scored} | {p.campaign for p in pre_scored}),
        "decode_arms": len(scored),
        "median_abs_pct_error_decode": median(s.abs_pct_error for s in scored),
        "median_abs_pct_error_ttft": median(p.abs_pct_error for p in ttft),
        "ttft_arms": len(ttft),
        "median_abs_pct_error_prefill_tok_s": median(p.abs_pct_error for p in prefill_tps),
        "prefill_tok_s_arms": len(prefill_tps),
        "speedup_pairs": len(pairs),
        "median_abs_pct_error_speedup": median(p.abs_pct_error for p in pairs),
        "speedup_right_side_share": round(sum(p.right_side for p in pairs) / len(pairs), 3) if pairs else None,
        "speedup_outcomes": outcome_counts(pairs),
    }


def prefill_groups(pre_scored: list[ScoredPrefill]) -> list[dict[str, Any]]:
    """The prefill arms by (arm kind, GEMM kind, engine, campaign): what each group can teach the others."""
    groups: dict[tuple[str, str, str, str], list[ScoredPrefill]] = defaultdict(list)
    for p in pre_scored:
        groups[(p.obs.kind, prefill_gemm_kind(p.obs), p.obs.engine, p.campaign)].append(p)
    return [{"kind": kind, "gemm": gemm, "engine": engine, "campaign": campaign, "arms": len(arms),
             "training_arms": sum(p.obs.teaches for p in arms)}
            for (kind, gemm, engine, campaign), arms in sorted(groups.items())]


def evaluate(ledger: Ledger, *, assume_context: float | None, assume_concurrency: int | None,
             workers: int = 1) -> dict[str, Any]:
    groups = campaigns(ledger)
    record_campaign = campaign_of(groups)
    members = {c.id: c.records for c in groups}

    def acceptance(record: Benchmark, arm: Arm, k: int) -> tuple[float, str] | None:
        """The ledger's measured acceptance for this model + method + k, the arm's own campaign left out."""
        assert arm.speculative is not None
        found = measured_acceptance(ledger, model=effective_subject(record, arm).model, method=arm.speculative.method,
                                    k=k, context=arm_context(record, arm), exclude=members[record_campaign[record.id]])
        if found is None:
            return None
        return found.central, f"median of {', '.join(a.ref for a in found.arms)} (other campaigns)"

    obs, skipped = observations(ledger, unknown_context=assume_context, unknown_concurrency=assume_concurrency,
                                unknown_acceptance=acceptance)
    scored, pairs = hold_out(obs, lambda o: record_campaign[o.ref.partition("#")[0]], baselines_of(obs),
                            workers)
    pre_obs, pre_skipped = prefill_observations(ledger, unknown_concurrency=assume_concurrency)
    pre_scored = hold_out_prefill(pre_obs, lambda o: record_campaign[o.ref.partition("#")[0]])
    ttft = [p for p in pre_scored if p.obs.metric == "ttft"]
    prefill_tps = [p for p in pre_scored if p.obs.metric == "prefill_throughput"]
    rows = [_row(s) for s in scored]
    pair_rows = [_pair(p) for p in pairs]
    used = {o.ref.partition("#")[0] for o in obs}
    families: dict[str, list[float]] = defaultdict(list)
    for s in scored:
        families[s.family].append(s.abs_pct_error)
    family_pairs: dict[str, list[Pair]] = defaultdict(list)
    for p in pairs:
        family_pairs[p.spec.family].append(p)
    halves = {half: figures([s for s in scored if campaign_half(s.campaign) == half],
                            [p for p in pairs if campaign_half(p.spec.campaign) == half],
                            [p for p in pre_scored if campaign_half(p.campaign) == half])
              for half in HALVES}
    return {
        "method": "campaign hold-out: each campaign's arms predicted with parameters fitted on the other campaigns "
                  f"only; parameter levels {list(LEVELS)}",
        "assumed_context": assume_context, "assumed_concurrency": assume_concurrency,
        "outcome_band": OUTCOME_BAND,
        "arms": len(rows), "skipped_arms": len(skipped),
        "campaigns": [{"id": c.id, "half": campaign_half(c.id), "records": list(c.records),
                       "families": list(c.families),
                       "arms_used": sum(1 for o in obs if record_campaign[o.ref.partition("#")[0]] == c.id)}
                      for c in groups if used.intersection(c.records)],
        **figures(scored, pairs, pre_scored),
        "halves": halves,
        "ttft_note": (f"{len(ttft)} TTFT and {len(prefill_tps)} prefill-throughput arms of requests prefilled alone "
                      f"(concurrency 1); {len(pre_skipped)} others skipped with a reason"),
        "prefill_rows": [{"arm": p.obs.ref, "campaign": p.campaign, "metric": p.obs.metric,
                          "measured": round(p.obs.value, 3), "predicted": round(p.predicted, 3),
                          "abs_pct_error": round(p.abs_pct_error, 2), "params_from": p.level,
                          "training_arms": p.training_arms, "kind": p.obs.kind, "trains": p.obs.teaches,
                          "t0_from": p.t0_from, "assumed": list(p.obs.assumed)} for p in pre_scored],
        "prefill_groups": prefill_groups(pre_scored),
        "prefill_skipped": [{"arm": ref, "reason": why} for ref, why in pre_skipped],
        "params_from": {level: sum(1 for s in scored if s.level == level) for level in LEVELS},
        "per_family": {f: {"arms": len(e), "median_abs_pct_error_decode": median(e),
                           "speedup_pairs": len(family_pairs[f]),
                           "median_abs_pct_error_speedup": median(p.abs_pct_error for p in family_pairs[f]),
                           "right_side": sum(p.right_side for p in family_pairs[f])}
                       for f, e in sorted(families.items())},
        "worst": sorted(rows, key=lambda r: -r["abs_pct_error"])[:10],
        "rows": rows,
        "speedup_rows": pair_rows,
        "skipped": [{"arm": ref, "reason": why} for ref, why in skipped],
    }


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f} %"


def _figure_rows(band: str) -> list[tuple[str, Callable[[dict[str, Any]], str]]]:
    """(label, cell renderer) of each headline figure, rendered for all campaigns and for each half."""
    def outcomes(side: str) -> Callable[[dict[str, Any]], str]:
        return lambda f: ", ".join(f"{k} {f['speedup_outcomes'][side].get(k, 0)}"
                                   for k in ("benefit", "harm", "no clear change"))

    return [
        ("median \\|error\\| decode tok/s", lambda f: _pct(f["median_abs_pct_error_decode"])),
        ("median \\|error\\| TTFT", lambda f: f"{_pct(f['median_abs_pct_error_ttft'])} over {f['ttft_arms']} arms"),
        ("median \\|error\\| prefill tok/s",
         lambda f: f"{_pct(f['median_abs_pct_error_prefill_tok_s'])} over {f['prefill_tok_s_arms']} arms"),
        ("speculative pairs", lambda f: str(f["speedup_pairs"])),
        ("median \\|error\\| speedup", lambda f: _pct(f["median_abs_pct_error_speedup"])),
        ("speedups on the right side of 1.0", lambda f: str(f["speedup_right_side_share"])),
        (f"measured outcomes (band {band})", outcomes("measured")),
        (f"predicted outcomes (band {band})", outcomes("predicted")),
    ]


def render(result: dict[str, Any]) -> str:
    """docs/model-accuracy.md: deterministic for a given ledger and code (no dates, no timings)."""
    halves = result["halves"]
    text = page_text()
    lines = [
        "# Physics-model accuracy (campaign hold-out)",
        "",
        f"Generated by `{COMMAND}` (do not edit; `--check` fails when this page is stale). Method: "
        f"{result['method']}. Unknown input length is taken as {result['assumed_context']} tokens and unknown "
        f"concurrency as {result['assumed_concurrency']} for closed-loop arms (listed per arm below; never written "
        "to the ledger).",
        "",
        *(f"{i}. {note}" for i, note in enumerate(text["method"], 1)),
        "",
        *text["selection"],
        "",
        "\n\n".join(text["halves"]),
        "",
        "| figure | all campaigns | development half | sealed half |",
        "|---|---|---|---|",
        f"| arms scored | {result['arms']} ({result['skipped_arms']} skipped: unknown conditions or no decode metric) "
        f"| {halves['development']['decode_arms']} | {halves['sealed']['decode_arms']} |",
        f"| campaigns | {len(result['campaigns'])} | {halves['development']['campaigns_scored']} | "
        f"{halves['sealed']['campaigns_scored']} |",
    ]
    band = f"±{100 * result['outcome_band']:g} %"
    for label, cell in _figure_rows(band):
        lines.append(f"| {label} | {cell(result)} | {cell(halves['development'])} | {cell(halves['sealed'])} |")
    lines += ["", f"TTFT and prefill arms: {result['ttft_note']}."]
    lines += ["", "Measured harms predicted as benefits, and what the model lacks for them:", "",
              *(f"- {note}" for note in text["missed-harms"])]
    lines += ["", "Where the parameters came from: " + ", ".join(
        f"{level} {n}" for level, n in result["params_from"].items()) + " arms.", "",
        "## Per hardware family", "", "| family | arms | median \\|error\\| decode | pairs | median \\|error\\| "
        "speedup | right side |", "|---|---|---|---|---|---|"]
    for fam, f in result["per_family"].items():
        lines.append(f"| {fam} | {f['arms']} | {_pct(f['median_abs_pct_error_decode'])} | {f['speedup_pairs']} | "
                     f"{_pct(f['median_abs_pct_error_speedup'])} | {f['right_side']}/{f['speedup_pairs']} |")
    lines += ["", *text["decode-bias"]]
    lines += ["", "## Ten worst decode predictions", "", "| arm | measured tok/s | predicted | error | limiting "
              "| params from |", "|---|---|---|---|---|---|"]
    for r in result["worst"]:
        lines.append(f"| {r['arm']} | {r['measured_tok_s']} | {r['predicted_tok_s']} | {r['abs_pct_error']} % | "
                     f"{', '.join(r['limiting'])} | {r['params_from']} ({r['training_arms']} arms) |")
    lines += ["", *(f"- {note}" for note in text["worst"])]
    lines += ["", "## Speculative pairs", "", "| arm | measured S | predicted S | outcome measured / predicted | "
              "error | limiting | assumed |", "|---|---|---|---|---|---|---|"]
    for s in result["speedup_rows"]:
        flag = "" if s["right_side"] else " **wrong side**"
        lines.append(f"| {s['arm']} | {s['measured']} | {s['predicted']}{flag} | {s['measured_outcome']} / "
                     f"{s['predicted_outcome']} | {s['abs_pct_error']} % | {', '.join(s['limiting'])} | "
                     f"{'; '.join(s['assumed']) or '–'} |")
    lines += ["", "## Prefill (TTFT, prefill tok/s)", "", "Groups (arm kind: forward = the forward alone, request = "
              "a served TTFT; a group's arms train the other campaigns' fits unless their concurrency is unknown):",
              "", "| kind | GEMM | engine | campaign | arms | arms that train |", "|---|---|---|---|---|---|"]
    for g in result["prefill_groups"]:
        lines.append(f"| {g['kind']} | {g['gemm']} | {g['engine']} | {g['campaign']} | {g['arms']} | "
                     f"{g['training_arms']} |")
    lines += ["", "| arm | metric | measured | predicted | error | params from | t0_prefill from |",
              "|---|---|---|---|---|---|---|"]
    for r in result["prefill_rows"]:
        lines.append(f"| {r['arm']} | {r['metric']} | {r['measured']} | {r['predicted']} | {r['abs_pct_error']} % | "
                     f"{r['params_from']} ({r['training_arms']} arms) | {r['t0_from']} |")
    lines += ["", "Skipped prefill arms:", ""] + [f"- {s['arm']}: {s['reason']}" for s in result["prefill_skipped"]]
    lines += ["", "## Campaigns", "", "| campaign | half | records | arms used |", "|---|---|---|---|"]
    for c in result["campaigns"]:
        lines.append(f"| {c['id']} | {c['half']} | {', '.join(c['records'])} | {c['arms_used']} |")
    return "\n".join(lines) + "\n"


def print_text(result: dict[str, Any]) -> None:
    print(f"{result['arms']} arms in {len(result['campaigns'])} campaigns ({result['skipped_arms']} skipped); "
          f"assumed for unknown conditions: context {result['assumed_context']}, concurrency "
          f"{result['assumed_concurrency']} (printed per arm, never written to the ledger)")
    for c in result["campaigns"]:
        print(f"  campaign {c['id']}: {len(c['records'])} records, {c['arms_used']} arms")
    print(f"median |error| decode tok/s: {_pct(result['median_abs_pct_error_decode'])}; TTFT: "
          f"{_pct(result['median_abs_pct_error_ttft'])}; speedup: {_pct(result['median_abs_pct_error_speedup'])} "
          f"over {result['speedup_pairs']} pairs; right side of 1.0: {result['speedup_right_side_share']}")
    print(f"outcomes measured {result['speedup_outcomes']['measured']}, predicted "
          f"{result['speedup_outcomes']['predicted']}")
    for s in result["speedup_rows"]:
        if s["assumed"]:
            print(f"  assumed for {s['arm']}: {'; '.join(s['assumed'])}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ledger", default=None)
    parser.add_argument("--assume-context", type=float, default=1000.0,
                        help="score arms with unknown input length at this KV length (stated per arm)")
    parser.add_argument("--assume-concurrency", type=int, default=1,
                        help="score closed-loop arms with unknown concurrency at this value (stated per arm)")
    parser.add_argument("--no-assume", action="store_true", help="skip arms with unknown context or concurrency")
    parser.add_argument("--workers", type=int, default=fit_workers(),
                        help="processes for the hold-out fits (default: this machine's CPUs; any count gives the "
                             "same numbers)")
    parser.add_argument("--json", action="store_true", help="print JSON; write nothing")
    parser.add_argument("--check", action="store_true", help="exit 1 when the docs page is stale")
    parser.add_argument("--docs", type=Path, default=None, help=f"page to write (default {DOCS} for the bundled ledger)")
    args = parser.parse_args()
    ledger = Ledger.load(args.ledger)
    result = evaluate(ledger, assume_context=None if args.no_assume else args.assume_context,
                      assume_concurrency=None if args.no_assume else args.assume_concurrency,
                      workers=max(1, args.workers))
    if not result["arms"]:
        print("model_accuracy: no arm could be scored (no usable benchmark arms in the ledger)", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    docs = args.docs or (DOCS if args.ledger is None else None)
    page = render(result)
    if args.check:
        if docs is None or not docs.exists() or docs.read_text(encoding="utf-8") != page:
            print(f"model_accuracy: {docs} is stale: run {COMMAND}", file=sys.stderr)
            return 1
        return 0
    print_text(result)
    if docs is not None:
        atomic_write_text(docs, page)
        print(f"wrote {docs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
