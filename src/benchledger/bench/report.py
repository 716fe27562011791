"""From a finished load point to ``summary.json`` per arm and ``comparison.json``.

The summary uses vLLM ``bench serve`` key names where one exists and adds ours: per-token ITL, tokens per chunk,
acceptance from the per-response fields, the counter family and definition, warnings, client overhead (event
loop lag), whether the run completed and why it stopped, and the metric definitions.
"""

from __future__ import annotations

from typing import Any

from benchledger.bench.checks import arm_warnings, not_windowable_note
from benchledger.bench.compare import compare_arms
from benchledger.bench.looplag import lag_summary, lag_warning, measured_windows
from benchledger.bench.outputs import write_json
from benchledger.bench.run import PointResult, RunConfig
from benchledger.bench.rundata import RequestRecord, Summary, counter_reset
from benchledger.bench.scrape import ScrapeError, snapshot
from benchledger.metrics import (
    DEFINITIONS,
    acceptance_from_counters,
    acceptance_from_responses,
    active_window,
    describe,
    summarize,
)

SPEC_KEYS = (
    "spec_decode_acceptance_rate",
    "spec_decode_acceptance_length",
    "spec_decode_num_drafts",
    "spec_decode_draft_tokens",
    "spec_decode_accepted_tokens",
    "spec_decode_per_position_acceptance_rates",
)


def _counters(scrape: tuple[str | None, str | None]) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """(windowed acceptance or None, facts about the scrape: family, generated-token delta, gauges, window
    validity and a note when a scrape was unusable or the counters reset)."""
    before_text, after_text = scrape
    facts: dict[str, Any] = {"family": None, "generated_delta": None, "gauges": {}, "scraped": False,
                             "window": "unavailable", "note": None, "reset": None}
    if before_text is None or after_text is None:
        return None, facts
    try:
        before, after = snapshot(before_text), snapshot(after_text)
    except ScrapeError as exc:
        facts["note"] = f"metrics unusable: {exc}; no counter-based acceptance or foreign-traffic check"
        return None, facts
    facts.update(scraped=True, family=after.family, gauges=after.gauges)
    reset = counter_reset(before, after)
    if reset is not None:
        facts.update(window="reset", reset=reset)
        return None, facts
    facts["window"] = "valid"
    if before.generated_tokens is not None and after.generated_tokens is not None:
        facts["generated_delta"] = after.generated_tokens - before.generated_tokens
    return acceptance_from_counters(before.model_dump(), after.model_dump()), facts


def _ttfot(records: list[RequestRecord]) -> dict[str, Any]:
    """Time to first answer (non-reasoning) token, ms, when any stream carried reasoning deltas."""
    values = [r.t_first_answer - r.t_sent for r in records
              if r.ok and r.reasoning_chunks and r.t_first_answer is not None and r.t_sent is not None]
    if not values:
        return {}
    stats = describe(values)
    return {f"{stat}_ttfot_ms": value * 1000.0 for stat, value in stats.items()} | {
        "ttfot_requests": len(values),
        "ttfot_definition": "time to first answer token: first chunk with answer content (not reasoning) − "
        "request sent; TTFT counts the first generated token of any kind, reasoning included",
    }


def summarize_arm(result: PointResult, config: RunConfig, arm_name: str) -> Summary:
    """The ``summary.json`` content for one arm at one load point."""
    arm = next(a for a in config.arms if a.name == arm_name)
    typed = [r for r in result.records[arm_name] if r.phase == "measured"]
    records = [r.model_dump() for r in typed]
    duration = active_window(records)
    summary = summarize(records, duration, config.slos_ms or None)
    counters, facts = _counters(result.scrapes.get(arm_name, (None, None)))
    responses = acceptance_from_responses(records)
    for key in SPEC_KEYS:
        summary[key] = None
    if counters is not None and counters["draft_tokens"]:
        summary.update(
            spec_decode_acceptance_rate=counters["acceptance_rate"],
            spec_decode_acceptance_length=counters["acceptance_length"],
            spec_decode_num_drafts=counters["num_drafts"],
            spec_decode_draft_tokens=counters["draft_tokens"],
            spec_decode_accepted_tokens=counters["accepted_tokens"],
            spec_decode_per_position_acceptance_rates=counters["per_position"],
        )
    summary.update(_ttfot(typed))
    summary["spec_decode_counter_family"] = facts["family"]
    summary["spec_decode_counter_window"] = facts["window"]
    summary["spec_decode_from_responses"] = responses
    notes = sorted({p.note for p in config.prompts if p.note})
    if (note := not_windowable_note(facts["gauges"])) is not None:
        notes.append(note)
    if facts["note"] is not None:
        notes.append(facts["note"])
    elif not facts["scraped"]:
        notes.append(f"metrics not scraped from {arm.metrics}: no counter-based acceptance or foreign-traffic check")
    warnings = arm_warnings(
        speculative=arm.speculative,
        summary=summary,
        records=records,
        counters=counters,
        generated_delta=facts["generated_delta"],
        window_output_tokens=sum(r.output_tokens for r in typed),
        temperature=config.request.temperature,
        ignore_eos=config.request.ignore_eos,
        synthetic_prompts=config.synthetic,
    )
    if result.error is not None:
        warnings.append(f"run error: the point ended early on a harness error ({result.error}); what was measured "
                        "is kept")
    if facts["reset"] is not None:
        warnings.append(f"counter reset: {facts['reset']} — this window's acceptance is invalid and not reported")
    overhead = {**client_overhead(records, result.loop_lag), "event_loop": config.event_loop}
    if (lag_note := lag_warning(overhead)) is not None:
        warnings.append(lag_note)
    errors: dict[str, int] = {}
    for r in typed:
        if not r.ok:
            reason = str(r.error).split(":")[0]
            errors[reason] = errors.get(reason, 0) + 1
    summary.update(
        arm=arm_name,
        load_point=result.point.label,
        max_concurrency=result.point.concurrency,
        request_rate=result.point.rate,
        speculative={"method": arm.spec_method, "k": arm.spec_k} if arm.speculative else None,
        warmup_requests=sum(1 for r in result.records[arm_name] if r.phase == "warmup"),
        errors_by_reason=errors,
        complete=result.stopped_by not in ("interrupted", "error") and not any(not r.ok for r in typed)
        and len(result.complete_rounds[arm_name]) > 0,
        stopped_by=result.stopped_by,
        complete_rounds=sorted(result.complete_rounds[arm_name]),
        chunk_token_sources=sorted({r.chunk_token_source for r in typed}),
        output_token_sources=sorted({r.output_tokens_source for r in typed}),
        warnings=warnings,
        notes=notes,
        definitions=DEFINITIONS,
        client_overhead=overhead,
        prompt_source=", ".join(sorted({p.input_tokens_source for p in config.prompts})) or None,
    )
    return Summary.model_validate(summary)


def client_overhead(records: list[dict[str, Any]], loop_lag: list[tuple[float, float]] | None = None) -> dict[str, Any]:
    """The client's own delays: connect + write time of each request, and event-loop lag in this arm's rounds."""
    gaps = sorted(r["t_sent"] - r["t_start"] for r in records if r.get("t_sent") is not None)
    out: dict[str, Any] = {
        "send_delay_ms_median": gaps[len(gaps) // 2] * 1000.0 if gaps else None,
        "send_delay_ms_max": gaps[-1] * 1000.0 if gaps else None,
        "send_delay_definition": "connect + write time of each request as seen by the client (includes TCP "
        "connect; not part of TTFT, which starts when the request is written)",
    }
    out.update(lag_summary(loop_lag or [], measured_windows(records)))
    return out


def write_point_outputs(result: PointResult, config: RunConfig) -> dict[str, Any]:
    """Write every arm's ``summary.json`` and the point's ``comparison.json``; return both.

    Each file is written even when another arm's summary or the comparison fails: the failure becomes a
    one-line ``error`` in what is written (a finally-path: a measured run is never lost to one bad value).
    """
    summaries: dict[str, Summary] = {}
    for a in config.arms:
        try:
            summaries[a.name] = summarize_arm(result, config, a.name)
        except Exception as exc:  # one bad value costs this summary's numbers, never the file
            summaries[a.name] = _failed_summary(result, a.name, exc)
        write_json(result.folder / a.name / "summary.json", summaries[a.name].flat())
    base = config.arms[0].name
    paired = set.intersection(*(result.complete_rounds[a.name] for a in config.arms)) if config.arms else set()
    comparisons: dict[str, Any] = {}
    for arm in config.arms[1:]:
        b = [r.model_dump() for r in result.records[base] if r.phase == "measured" and r.round in paired]
        other = [r.model_dump() for r in result.records[arm.name] if r.phase == "measured" and r.round in paired]
        try:
            comparisons[arm.name] = compare_arms(b, other, seed=config.seed)
        except Exception as exc:
            comparisons[arm.name] = {"error": f"comparison failed: {type(exc).__name__}: {exc}"}
    comparison = {"baseline": base, "load_point": result.point.label, "stopped_by": result.stopped_by,
                  "arms": comparisons}
    write_json(result.folder / "comparison.json", comparison)
    return {"summaries": summaries, "comparison": comparison}


def _failed_summary(result: PointResult, arm_name: str, exc: Exception) -> Summary:
    records = [r for r in result.records[arm_name] if r.phase == "measured"]
    ok = sum(1 for r in records if r.ok)
    return Summary(arm=arm_name, load_point=result.point.label, completed=ok, failed=len(records) - ok,
                   complete=False, stopped_by=result.stopped_by,
                   warnings=[f"summary failed: {type(exc).__name__}: {exc}; raw data is in requests.jsonl"])


__all__ = ["SPEC_KEYS", "client_overhead", "summarize_arm", "write_point_outputs"]
