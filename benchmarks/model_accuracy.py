"""Leave-one-source-out accuracy of the physics model over the ledger's benchmark records.

For each source, the (accelerator, engine) group of every arm it backs is calibrated on the *other* sources'
arms only (defaults when nothing else is left), and the held-out arms are predicted. Prints the median absolute
% error of decode tok/s and the share of speculative speedups whose side of 1.0 the model gets right.

    python benchmarks/model_accuracy.py [--ledger DIR] [--assume-context 1000] [--assume-concurrency 1] [--json]

Each arm is scored on its decode metric: ``tpot`` when the record has it (pure decode, what the model predicts),
else ``per_stream_throughput``, else ``output_throughput``. Assumed conditions are printed and never written.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from collections import defaultdict
from collections.abc import Iterator

from benchledger.ledger import Ledger
from benchledger.perfmodel.calibrate import Observation, fit, observations, predicted
from benchledger.perfmodel.predict import Params, predict
from benchledger.perfmodel.roofline import Efficiency


def _tok_s(value: float, metric: str) -> float:
    return 1000.0 / value if metric == "tpot" else value


def spec_pairs(obs: list[Observation], baselines: dict[str, str]
               ) -> Iterator[tuple[Observation, Observation, float]]:
    """Each speculative observation with its baseline observation and the measured speedup."""
    by_ref = {o.ref: o for o in obs}
    for o in obs:
        base_ref = baselines.get(o.ref)
        if o.scenario.spec is None or not base_ref or base_ref not in by_ref:
            continue
        b = by_ref[base_ref]
        yield o, b, _tok_s(o.value, o.metric) / _tok_s(b.value, b.metric)


def _record_arm(ref: str) -> tuple[str, str]:
    record, _, arm = ref.partition("#")
    return record, arm


def evaluate(obs: list[Observation], baselines: dict[str, str]) -> dict[str, object]:
    """Leave-one-source-out predictions for every observation, then the error and speedup-side statistics."""
    by_ref = {o.ref: o for o in obs}
    def origin(o: Observation) -> frozenset[str]:
        """What to hold out: the arm's sources, or its own record when it cites none (a measured run)."""
        return frozenset(o.sources) or frozenset({_record_arm(o.ref)[0]})

    sources = sorted({s for o in obs for s in origin(o)})
    held_pred: dict[str, float] = {}
    calibrated: dict[str, bool] = {}
    fit_cache: dict[tuple[tuple[str, str], frozenset[str]], Efficiency | None] = {}

    def params_without(key: tuple[str, str], excluded: frozenset[str]) -> Efficiency | None:
        cache_key = (key, excluded)
        if cache_key not in fit_cache:
            train = [o for o in obs if o.key == key and not excluded.intersection(origin(o))]
            fit_cache[cache_key] = fit(train).eff if train else None
        return fit_cache[cache_key]

    for source in sources:
        for o in (o for o in obs if source in origin(o)):
            if o.ref in held_pred:
                continue
            excluded = origin(o)
            base_ref = baselines.get(o.ref)
            if base_ref and base_ref in by_ref:
                excluded |= origin(by_ref[base_ref])
            eff = params_without(o.key, excluded)
            calibrated[o.ref] = eff is not None
            held_pred[o.ref] = _tok_s(predicted(predict(o.scenario, Params(eff or Efficiency())), o.metric), o.metric)
            if base_ref and base_ref in by_ref:
                b = by_ref[base_ref]
                held_pred[f"{o.ref}@base"] = _tok_s(predicted(predict(b.scenario, Params(eff or Efficiency())),
                                                              b.metric), b.metric)
    errors, errors_cal, rows = [], [], []
    for o in obs:
        measured = _tok_s(o.value, o.metric)
        err = abs(held_pred[o.ref] / measured - 1.0) * 100.0
        errors.append(err)
        if calibrated[o.ref]:
            errors_cal.append(err)
        rows.append({"arm": o.ref, "hardware": o.key[0], "engine": o.key[1], "measured_tok_s": round(measured, 3),
                     "predicted_tok_s": round(held_pred[o.ref], 3), "abs_pct_error": round(err, 1),
                     "metric": o.metric, "calibrated": calibrated[o.ref], "assumed": list(o.assumed)})
    speedups = []
    for o, _b, measured_s in spec_pairs(obs, baselines):
        predicted_s = held_pred[o.ref] / held_pred[f"{o.ref}@base"]
        right = (measured_s > 1.0) == (predicted_s > 1.0)
        speedups.append({"arm": o.ref, "measured": round(measured_s, 3), "predicted": round(predicted_s, 3),
                         "right_side": right})
    return {
        "arms": len(obs),
        "sources": len(sources),
        "median_abs_pct_error": round(statistics.median(errors), 2) if errors else None,
        "median_abs_pct_error_calibrated": round(statistics.median(errors_cal), 2) if errors_cal else None,
        "arms_calibrated": len(errors_cal),
        "speedups": len(speedups),
        "speedup_right_side_share": (round(sum(s["right_side"] for s in speedups) / len(speedups), 3)
                                     if speedups else None),
        "rows": rows,
        "speedup_rows": speedups,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ledger", default=None)
    parser.add_argument("--assume-context", type=float, default=None,
                        help="include arms with unknown input length at this KV length (stated in the output)")
    parser.add_argument("--assume-concurrency", type=int, default=None,
                        help="include arms with unknown concurrency at this value, e.g. 1 for per-request tables")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    ledger = Ledger.load(args.ledger)
    obs, skipped = observations(ledger, unknown_context=args.assume_context,
                                unknown_concurrency=args.assume_concurrency)
    baselines: dict[str, str] = {}
    for o in obs:
        record_id, arm_name = _record_arm(o.ref)
        record = ledger.get(record_id)
        arm = next(a for a in record.arms if a.name == arm_name)  # type: ignore[union-attr]
        if arm.baseline:
            baselines[o.ref] = f"{record_id}#{arm.baseline}"
    result = evaluate(obs, baselines)
    result["skipped_arms"] = len(skipped)
    result["assumed_context"] = args.assume_context
    result["assumed_concurrency"] = args.assume_concurrency
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"arms used: {result['arms']} from {result['sources']} sources ({len(skipped)} arms skipped: "
          f"unknown conditions); assumed for unknown conditions: input context {args.assume_context}, "
          f"concurrency {args.assume_concurrency} (never written to the ledger)")
    print(f"median |error| of tok/s, leave-one-source-out: {result['median_abs_pct_error']} % "
          f"(calibrated arms only: {result['median_abs_pct_error_calibrated']} % over {result['arms_calibrated']})")
    print(f"speedups on the right side of 1.0: {result['speedup_right_side_share']} of {result['speedups']}")
    groups: dict[str, list[float]] = defaultdict(list)
    for row in result["rows"]:  # type: ignore[attr-defined]
        groups[f"{row['hardware']} × {row['engine']}"].append(row["abs_pct_error"])
    for group, errs in sorted(groups.items()):
        print(f"  {group}: {len(errs)} arms, median |error| {statistics.median(errs):.1f} %")
    for s in result["speedup_rows"]:  # type: ignore[attr-defined]
        flag = "" if s["right_side"] else "   <-- wrong side"
        print(f"  S {s['arm']}: measured {s['measured']}, predicted {s['predicted']}{flag}")
    print("in-sample (each hardware × engine fitted on all its arms, as the calibration records are):")
    for s in in_sample_speedups(obs, baselines):
        flag = "" if s["right_side"] else "   <-- wrong side"
        print(f"  S {s['arm']}: measured {s['measured']}, fitted {s['predicted']}, limiting {s['limiting']}{flag}")
    assert all(math.isfinite(r["abs_pct_error"]) for r in result["rows"])  # type: ignore[attr-defined]


def in_sample_speedups(obs: list[Observation], baselines: dict[str, str]) -> list[dict[str, object]]:
    """Speedups predicted with each group's parameters fitted on all of its arms (not held out)."""
    fits = {key: fit([o for o in obs if o.key == key]).eff for key in {o.key for o in obs}}
    out: list[dict[str, object]] = []
    for o, _b, measured_s in spec_pairs(obs, baselines):
        p = predict(o.scenario, Params(fits[o.key]))
        assert p.speedup is not None
        out.append({"arm": o.ref, "measured": round(measured_s, 3), "predicted": round(p.speedup, 3),
                    "right_side": (measured_s > 1.0) == (p.speedup > 1.0), "limiting": ",".join(p.limiting)})
    return out


if __name__ == "__main__":
    main()
