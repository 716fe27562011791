"""``benchledger predict`` / ``advise`` / ``calibrate``: the physics model on the command line."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import typer

from benchledger.cli.options import LedgerOption, console, load
from benchledger.cli.render import print_table

_KINDS = {"model": "model", "draft_model": "model", "hardware": "accelerator", "engine": "engine", "kv": "format",
          "weights": "format"}


def resolve_ids(ledger: Any, **given: str | None) -> tuple[Any, ...]:
    """Each given id as the ledger spells it (case-insensitive; unknown → closest ids suggested), in order."""
    from benchledger.ledger.ids import resolve_id

    return tuple(None if v is None else resolve_id(ledger, v, _KINDS[k]) for k, v in given.items())


def register(app: typer.Typer) -> None:
    app.command("predict")(predict_cmd)
    app.command("advise")(advise_cmd)
    app.command("calibrate")(calibrate_cmd)


def _rates(text: str | None) -> tuple[float, ...]:
    if not text:
        return ()
    try:
        return tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError as exc:
        raise typer.BadParameter(f"--acceptance expects comma-separated rates, e.g. 0.78,0.56,0.44: {exc}") from exc


def predict_cmd(
    model: str = typer.Option(..., "--model", help="Model id (models/)."),
    hardware: str = typer.Option(..., "--hardware", help="Accelerator id (accelerators/)."),
    weights: str = typer.Option(..., "--weights", help="Weight format id (formats/)."),
    context: float = typer.Option(..., "--context", help="KV length during decode, tokens."),
    concurrency: int = typer.Option(1, "--concurrency", min=1, help="Sequences decoding together."),
    devices: int = typer.Option(1, "--devices", min=1, help="Devices the model is spread over."),
    tp: int | None = typer.Option(None, "--tp", min=1, help="Tensor-parallel size (default: --devices)."),
    kv: str | None = typer.Option(None, "--kv", help="KV-cache format id (default bf16)."),
    engine: str | None = typer.Option(None, "--engine", help="Engine id: selects its calibration."),
    spec: str | None = typer.Option(None, "--spec", help="Speculative method: mtp, eagle3, draft-model, ngram, …"),
    k: int = typer.Option(0, "--k", min=0, help="Draft tokens per step."),
    acceptance: str | None = typer.Option(
        None, "--acceptance", help="Per-position rates r1,r2,… (unconditional; default: the ledger's measured)."),
    acceptance_length: float | None = typer.Option(
        None, "--acceptance-length", help="Mean accepted length AL (default: the ledger's measured)."),
    draft_model: str | None = typer.Option(None, "--draft-model", help="Draft model id for --spec draft-model."),
    prompt_tokens: float | None = typer.Option(
        None, "--prompt-tokens", help="Prompt length for TTFT / prefill tok/s (default: --context)."),
    pp: int | None = typer.Option(None, "--pp", min=1, help="Pipeline / layer-split stages (default: the engine's)."),
    ignore_fit: bool = typer.Option(False, "--ignore-fit", help="Predict even when weights + KV + state do not fit."),
    verify_kernel: str | None = typer.Option(
        None, "--verify-kernel", help="Verify attention: exact (KV read once), prefill (once per query) or a factor φ."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ledger_dir: Path | None = LedgerOption,
) -> None:
    """Predict tok/s, TPOT, speedup and the physical ceiling of one configuration."""
    from benchledger.perfmodel.acceptance import choose_acceptance
    from benchledger.perfmodel.architecture import model_from_record
    from benchledger.perfmodel.inputs import (
        params_for,
        scenario_for,
        snapshots_per_position,
        with_verify_kernel,
    )
    from benchledger.perfmodel.memory import fit_check
    from benchledger.perfmodel.predict import predict
    from benchledger.perfmodel.specdec import METHODS, SpecConfig
    from benchledger.schema import ModelArch

    ledger = load(ledger_dir)
    model, hardware, engine, kv, weights, draft_model = resolve_ids(
        ledger, model=model, hardware=hardware, engine=engine, kv=kv, weights=weights, draft_model=draft_model)
    spec_cfg = None
    acceptance_origin = "input (--acceptance)" if acceptance else "input (--acceptance-length)"
    if not spec and (k or acceptance or acceptance_length is not None or draft_model):
        raise typer.BadParameter("--k, --acceptance, --acceptance-length and --draft-model need --spec METHOD")
    if spec and spec not in METHODS:
        raise typer.BadParameter(f"unknown --spec method {spec!r}: one of {', '.join(METHODS)}")
    if spec:
        if k < 1:
            raise typer.BadParameter("--spec needs --k ≥ 1")
        rates = _rates(acceptance)
        if not rates and acceptance_length is None:
            choice = choose_acceptance(ledger, model=model, method=spec, k=k, context=context)
            if choice is not None:
                acceptance_length, acceptance_origin = choice.al, choice.origin
        draft = None
        if draft_model:
            record = ledger.get(draft_model)
            if not isinstance(record, ModelArch):
                raise typer.BadParameter(f"{draft_model!r} is not a model record")
            draft = model_from_record(record)
        try:
            spec_cfg = SpecConfig(spec, k, rates, acceptance_length, draft_model=draft,
                                  state_snapshots=snapshots_per_position(engine))
            from benchledger.perfmodel.specdec import acceptance_length as al_of

            al_of(k, rates, acceptance_length)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from exc
    sc = scenario_for(ledger, model=model, hardware=hardware, weights=weights, context=context,
                      concurrency=concurrency, devices=devices, tp=tp, kv=kv, engine=engine, spec=spec_cfg, pp=pp)
    sc = replace(sc, prompt_tokens=prompt_tokens)
    if spec_cfg is not None:
        sc.provenance["acceptance"] = acceptance_origin
    memory = fit_check(sc)
    if not memory.ok and not ignore_fit:
        raise typer.BadParameter(f"does not fit: {memory.describe()} (--ignore-fit predicts anyway)")
    try:
        params = with_verify_kernel(params_for(ledger, hardware, engine), verify_kernel)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    result = predict(sc, params).to_json()
    result["memory"] = {"fits": memory.ok, "need_gb": round(memory.need / 1e9, 3), "detail": memory.describe(),
                        "have_gb": None if memory.have is None else round(memory.have / 1e9, 3)}
    if as_json:
        print(json.dumps(result, indent=2))
        return
    _render_prediction(result)


def _render_prediction(result: dict[str, Any]) -> None:
    out = console()
    out.print(f"per stream {result['tok_s_per_stream']:.2f} tok/s · aggregate {result['aggregate_tok_s']:.2f} tok/s"
              f" · TPOT {result['tpot_ms']:.2f} ms · {result['ceiling_name']} {result['ceiling_tok_s_per_stream']:.2f}"
              " tok/s")
    if result["speedup"] is not None:
        out.print(f"speedup vs no speculation: {result['speedup']:.3f}× (AL {result['acceptance_length']:.2f})")
    out.print(f"limiting: {', '.join(result['limiting'])}")
    print_table(out, ["term", "ms", "share", "bound", "detail"],
                [(t["name"], round(t["ms"], 3), f"{100 * t['share']:.0f} %", t["bound"], t["detail"])
                 for t in result["terms"]])
    print_table(out, ["assumption", "value", "unit", "origin"],
                [(a["name"], a["value"], a["unit"], a["origin"]) for a in result["assumptions"]])


def advise_cmd(
    model: str = typer.Option(..., "--model", help="Model id (models/)."),
    hardware: str = typer.Option(..., "--hardware", help="Accelerator id (accelerators/)."),
    input_tokens: float | None = typer.Option(None, "--input-tokens", help="Prompt length, tokens (decode is "
                                              "modelled at input + output/2 tokens of KV)."),
    context: float | None = typer.Option(None, "--context", help="KV length during decode, tokens (as predict "
                                         "--context); give it or --input-tokens."),
    output_tokens: int = typer.Option(..., "--output-tokens", min=1, help="Generated tokens per request."),
    concurrency: int = typer.Option(1, "--concurrency", min=1, help="Sequences decoding together."),
    devices: int = typer.Option(1, "--devices", min=1, help="Most devices to consider (1, 2, 4, … up to this)."),
    target_tok_s: float | None = typer.Option(None, "--target-tok-s", help="Per-stream tok/s target."),
    engine: str | None = typer.Option(None, "--engine", help="Engine id: selects its calibration."),
    kv: str | None = typer.Option(None, "--kv", help="KV-cache format id (default bf16)."),
    acceptance: str | None = typer.Option(
        None, "--acceptance", help="Per-position rates r1,r2,… (default: the ledger's measured acceptance)."),
    acceptance_length: float | None = typer.Option(
        None, "--acceptance-length", help="Mean accepted length AL at --k-max (other k: converted, i.i.d.)."),
    temperature: float | None = typer.Option(None, "--temperature", help="Sampling temperature (acceptance lookup)."),
    verify_kernel: str | None = typer.Option(
        None, "--verify-kernel", help="Verify attention: exact (KV read once), prefill (once per query) or a factor φ."),
    k_max: int = typer.Option(4, "--k-max", min=0, help="Largest k (draft tokens per step) to try."),
    method: str = typer.Option("mtp", "--method", help="Speculative method to rank: mtp, eagle3, draft-model, …"),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ledger_dir: Path | None = LedgerOption,
) -> None:
    """Rank spec on/off and k, weight format and device count by predicted tok/s, with reasons and the nearest
    measured arms; acceptance is the ledger's measured one unless given."""
    from benchledger.perfmodel.advice import AdviceRequest, advise_ledger
    from benchledger.perfmodel.specdec import METHODS

    if method not in METHODS:
        raise typer.BadParameter(f"unknown --method {method!r}: one of {', '.join(METHODS)}")
    if acceptance_length is not None and not 1.0 <= acceptance_length <= k_max + 1:
        raise typer.BadParameter(f"--acceptance-length {acceptance_length:g} outside [1, k_max+1={k_max + 1}]")
    if (input_tokens is None) == (context is None):
        raise typer.BadParameter("give exactly one of --input-tokens (prompt length) or --context (KV length "
                                 "during decode, as predict --context)")
    ledger = load(ledger_dir)
    model, hardware, engine, kv = resolve_ids(ledger, model=model, hardware=hardware, engine=engine, kv=kv)
    prompt = input_tokens if input_tokens is not None else (context if context is not None else 0.0)
    req = AdviceRequest(model=model, hardware=hardware, context=prompt, decode_context=context,
                        output_tokens=output_tokens,
                        concurrency=concurrency, devices=devices, target_tok_s=target_tok_s, engine=engine, kv=kv,
                        method=method, k_max=k_max, rates=_rates(acceptance), acceptance_length=acceptance_length,
                        temperature=temperature, verify_kernel=verify_kernel)
    try:
        advice = advise_ledger(ledger, req)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    result = advice.to_json()
    if as_json:
        print(json.dumps(result, indent=2))
        return
    _render_advice(result)


def _render_advice(result: dict[str, Any]) -> None:
    table = []
    for i, row in enumerate(result["options"], 1):
        near = "; ".join(f"{n['arm']} [{n['conditions']}] {n['measured_tok_s_per_stream']} tok/s "
                         f"({n['delta_pct']:+.0f} %)" for n in row["nearest_measured"])
        span = row["tok_s_per_stream_range"]
        tok_s = str(row["tok_s_per_stream"]) + ("" if not span else f" ({span[0]}–{span[1]})")
        table.append((i, str(row["option"]), tok_s, row["aggregate_tok_s"], row["speedup"], str(row["reason"]), near))
    out = console()
    print_table(out, ["#", "option", "tok/s/stream", "aggregate", "S", "reason", "nearest measured (Δ prediction)"],
                table)
    for k, choice in result["acceptance"].items():
        out.print(f"acceptance k={k}: AL {choice['acceptance_length']:.2f} — {choice['origin']}")
    for line in [result["target"], result["format_note"], *(f"skipped {u}" for u in result["formats_skipped"])]:
        if line:
            out.print(line)


def calibrate_cmd(
    hardware: str | None = typer.Option(None, "--hardware", help="Only this accelerator id."),
    engine: str | None = typer.Option(None, "--engine", help="Only this engine id."),
    assume_context: float | None = typer.Option(
        None, "--assume-context", help="Use arms whose input length is unknown, at this KV length (stated)."),
    assume_concurrency: int | None = typer.Option(
        None, "--assume-concurrency", min=1,
        help="Use arms whose concurrency is unknown at this concurrency (e.g. 1 for per-request tables; stated)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Fit and print; write nothing."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ledger_dir: Path | None = LedgerOption,
) -> None:
    """Fit η_m, η_c, t0, t0_draft, φ per (hardware, engine) and write calibration records to <ledger>/calibrations/."""
    from benchledger.ledger import write_record
    from benchledger.perfmodel.calibrate import calibrate_ledger, with_history

    ledger = load(ledger_dir)
    results, skipped = calibrate_ledger(ledger, accelerator=hardware, engine=engine, unknown_context=assume_context,
                                        unknown_concurrency=assume_concurrency)
    written = []
    args = " ".join(f"--{k.replace('_', '-')} {v:g}" for k, v in (("assume_context", assume_context),
                                                                     ("assume_concurrency", assume_concurrency)) if v)
    change = f"fitted by benchledger calibrate {args}".strip()
    for record, _fit in results:
        if not dry_run:
            updated = with_history(record, ledger.records.get(record.id), change, dt.date.today())
            if updated is not None:  # (None: the fit equals the record, which stays as it is)
                written.append(str(write_record(ledger.root, updated)))
    summary: dict[str, Any] = {
        "calibrations": [
            {"id": r.id, "accelerator": r.accelerator, "engine": r.engine, "arms": len(r.fitted_from),
             "parameters": {k: q.value for k, q in r.parameters.items()},
             "median_abs_pct": None if r.residual_pct is None else r.residual_pct.value}
            for r, _ in results
        ],
        "written": written,
        "skipped": [{"arm": ref, "reason": why} for ref, why in skipped],
    }
    if as_json:
        print(json.dumps(summary, indent=2))
        return
    out = console()
    for c in summary["calibrations"]:
        params = ", ".join(f"{k}={v:.4g}" for k, v in c["parameters"].items())
        out.print(f"{c['id']}: {c['arms']} arms, {params}, median |err| {c['median_abs_pct']} %")
    out.print(f"{len(written)} record(s) written; {len(skipped)} arm(s) skipped (use --json for reasons)")


__all__ = ["register"]
