"""``benchledger predict`` / ``advise`` / ``calibrate``: the physics model on the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from benchledger.cli.options import LedgerOption, console, load

ADVISE_FORMATS = ("bf16", "fp8-e4m3", "int4", "nvfp4", "mxfp4")


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
    devices: int = typer.Option(1, "--devices", min=1),
    tp: int | None = typer.Option(None, "--tp", min=1, help="Tensor-parallel size (default: --devices)."),
    kv: str | None = typer.Option(None, "--kv", help="KV-cache format id (default bf16)."),
    engine: str | None = typer.Option(None, "--engine", help="Engine id: selects its calibration."),
    spec: str | None = typer.Option(None, "--spec", help="Speculative method: mtp, eagle3, draft-model, ngram, …"),
    k: int = typer.Option(0, "--k", min=0, help="Draft tokens per step."),
    acceptance: str | None = typer.Option(None, "--acceptance", help="Per-position rates r1,r2,… (unconditional)."),
    acceptance_length: float | None = typer.Option(None, "--acceptance-length", help="Mean accepted length AL."),
    draft_model: str | None = typer.Option(None, "--draft-model", help="Draft model id for --spec draft-model."),
    ignore_fit: bool = typer.Option(False, "--ignore-fit", help="Predict even when weights + KV + state do not fit."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    ledger_dir: Path | None = LedgerOption,
) -> None:
    """Predict tok/s, TPOT, speedup and the physical ceiling of one configuration."""
    from benchledger.perfmodel.architecture import model_from_record
    from benchledger.perfmodel.inputs import params_for, scenario_for, snapshots_per_position
    from benchledger.perfmodel.memory import fit_check
    from benchledger.perfmodel.predict import predict
    from benchledger.perfmodel.specdec import METHODS, SpecConfig
    from benchledger.schema import ModelArch

    ledger = load(ledger_dir)
    spec_cfg = None
    if not spec and (k or acceptance or acceptance_length is not None or draft_model):
        raise typer.BadParameter("--k, --acceptance, --acceptance-length and --draft-model need --spec METHOD")
    if spec and spec not in METHODS:
        raise typer.BadParameter(f"unknown --spec method {spec!r}: one of {', '.join(METHODS)}")
    if spec:
        if k < 1:
            raise typer.BadParameter("--spec needs --k ≥ 1")
        rates = _rates(acceptance)
        if not rates and acceptance_length is None:
            raise typer.BadParameter("--spec needs --acceptance r1,r2,… or --acceptance-length AL")
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
                      concurrency=concurrency, devices=devices, tp=tp, kv=kv, engine=engine, spec=spec_cfg)
    memory = fit_check(sc)
    if not memory.ok and not ignore_fit:
        raise typer.BadParameter(f"does not fit: {memory.describe()} (--ignore-fit predicts anyway)")
    result = predict(sc, params_for(ledger, hardware, engine)).to_json()
    result["memory"] = {"fits": memory.ok, "need_gb": round(memory.need / 1e9, 3), "detail": memory.describe(),
                        "have_gb": None if memory.have is None else round(memory.have / 1e9, 3)}
    if as_json:
        print(json.dumps(result, indent=2))
        return
    _render_prediction(result)


def _render_prediction(result: dict[str, Any]) -> None:
    from rich.table import Table

    out = console()
    out.print(f"per stream {result['tok_s_per_stream']:.2f} tok/s · aggregate {result['aggregate_tok_s']:.2f} tok/s"
              f" · TPOT {result['tpot_ms']:.2f} ms · ceiling {result['ceiling_tok_s_per_stream']:.2f} tok/s/stream")
    if result["speedup"] is not None:
        out.print(f"speedup vs no speculation: {result['speedup']:.3f}× (AL {result['acceptance_length']:.2f})")
    out.print(f"limiting: {', '.join(result['limiting'])}")
    table = Table("term", "ms", "share", "bound", "detail")
    for t in result["terms"]:
        table.add_row(t["name"], f"{t['ms']:.3f}", f"{100 * t['share']:.0f} %", t["bound"], t["detail"])
    out.print(table)
    assumptions = Table("assumption", "value", "unit", "origin")
    for a in result["assumptions"]:
        assumptions.add_row(a["name"], str(a["value"]), a["unit"], a["origin"])
    out.print(assumptions)


def advise_cmd(
    model: str = typer.Option(..., "--model"),
    hardware: str = typer.Option(..., "--hardware"),
    context: float = typer.Option(..., "--context", help="Prompt length, tokens."),
    output_tokens: int = typer.Option(..., "--output-tokens", min=1),
    concurrency: int = typer.Option(1, "--concurrency", min=1),
    devices: int = typer.Option(1, "--devices", min=1, help="Most devices to consider (1, 2, 4, … up to this)."),
    target_tok_s: float | None = typer.Option(None, "--target-tok-s", help="Per-stream tok/s target."),
    engine: str | None = typer.Option(None, "--engine"),
    kv: str | None = typer.Option(None, "--kv"),
    acceptance: str | None = typer.Option(None, "--acceptance", help="Per-position rates (default α=0.7 i.i.d.)."),
    k_max: int = typer.Option(4, "--k-max", min=0),
    method: str = typer.Option("mtp", "--method"),
    as_json: bool = typer.Option(False, "--json"),
    ledger_dir: Path | None = LedgerOption,
) -> None:
    """Rank spec on/off and k, weight format and device count by predicted tok/s, with reasons."""
    from benchledger.perfmodel.advise import DEFAULT_ALPHA, FORMAT_CAVEAT, advise, target_verdict
    from benchledger.perfmodel.inputs import params_for, scenario_for
    from benchledger.schema import Format

    ledger = load(ledger_dir)
    decode_context = context + output_tokens / 2.0
    known = {f.id for f in ledger.typed("format", Format) if "weights" in f.applies_to}
    from benchledger.perfmodel.errors import MissingInputError

    formats, unusable = [], []
    for w in (w for w in ADVISE_FORMATS if w in known):
        try:
            formats.append(scenario_for(ledger, model=model, hardware=hardware, weights=w, context=decode_context,
                                        concurrency=concurrency, kv=kv, engine=engine))
        except MissingInputError as exc:
            if exc.record != w:
                raise
            unusable.append(f"{w}: {exc.reason}")
    if not formats:
        raise typer.BadParameter(f"none of the weight formats {ADVISE_FORMATS} is in the ledger")
    counts = [d for d in (1, 2, 4, 8, 16) if d <= devices]
    rates = _rates(acceptance) or None
    params = params_for(ledger, hardware, engine)
    options = advise(formats[0], params_for=lambda _sc: params, formats=formats, device_counts=counts,
                     ks=list(range(1, k_max + 1)), rates=rates, method=method, target_tok_s=target_tok_s)
    rows = [o.to_json() for o in options]
    note = None if rates else f"acceptance: default i.i.d. α={DEFAULT_ALPHA} (pass --acceptance)"
    verdict = target_verdict(options, target_tok_s)
    if as_json:
        print(json.dumps({"options": rows, "target": verdict, "acceptance_note": note, "format_note": FORMAT_CAVEAT,
                          "formats_skipped": unusable}, indent=2))
        return
    from rich.table import Table

    table = Table("#", "option", "tok/s/stream", "aggregate", "S", "reason")
    for i, row in enumerate(rows, 1):
        table.add_row(str(i), str(row["option"]), str(row["tok_s_per_stream"]), str(row["aggregate_tok_s"]),
                      str(row["speedup"] or ""), str(row["reason"]))
    out = console()
    out.print(table)
    for line in [verdict, note, FORMAT_CAVEAT, *(f"skipped {u}" for u in unusable)]:
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
    as_json: bool = typer.Option(False, "--json"),
    ledger_dir: Path | None = LedgerOption,
) -> None:
    """Fit η_m, η_c, t0, t0_draft, φ per (hardware, engine) and write calibration records to <ledger>/calibrations/."""
    from benchledger.ledger import write_record
    from benchledger.perfmodel.calibrate import calibrate_ledger

    ledger = load(ledger_dir)
    results, skipped = calibrate_ledger(ledger, accelerator=hardware, engine=engine, unknown_context=assume_context,
                                        unknown_concurrency=assume_concurrency)
    written = []
    for record, _fit in results:
        if not dry_run:
            written.append(str(write_record(ledger.root, record)))
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
