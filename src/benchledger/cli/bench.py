"""Harness commands: ``bench`` (paired runs against OpenAI-compatible servers) and ``demo``."""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from benchledger.cli.options import LedgerOption, console
from benchledger.cli.render import print_table
from benchledger.errors import BenchError, BenchInterrupted


def register(app: typer.Typer) -> None:
    app.command("bench")(bench)
    app.command("demo")(demo)


def _pairs(values: list[str], flag: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in values:
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise BenchError(f"{flag} {item!r}: expected NAME=VALUE")
        if name in out:
            raise BenchError(f"{flag}: {name!r} given twice")
        out[name] = value
    return out


def _numbers(values: list[str], cast: type) -> list[Any]:
    out = []
    for item in values:
        for part in item.split(","):
            if part.strip():
                try:
                    out.append(cast(part))
                except ValueError:
                    raise BenchError(f"expected a number (or comma-separated list), got {part!r}") from None
    return out


def _spec(value: str, name: str) -> tuple[str, int | None]:
    method, _, k = value.partition(":")
    if not method:
        raise BenchError(f"--spec {name}={value!r}: expected METHOD[:K], e.g. draft-model:4")
    try:
        return method, int(k) if k else None
    except ValueError:
        raise BenchError(f"--spec {name}={value!r}: K must be an integer") from None


def bench(
    arm: list[str] = typer.Option([], "--arm", help="NAME=URL of a server root (repeatable; first = baseline)."),
    base_url: str | None = typer.Option(None, "--base-url", help="One server: an arm named 'base'."),
    model: str | None = typer.Option(None, "--model", help="Served model name sent in requests."),
    launch: list[str] = typer.Option([], "--launch", help="NAME='command' to start that arm's engine."),
    metrics_url: list[str] = typer.Option([], "--metrics-url", help="NAME=URL of its Prometheus metrics."),
    spec: list[str] = typer.Option([], "--spec", help="NAME=METHOD:K marks a speculative arm (e.g. mtp:3)."),
    endpoint: str = typer.Option("completions", "--endpoint", help="completions or chat."),
    input_tokens: int = typer.Option(128, "--input-tokens", help="Synthetic prompt length (tokens)."),
    output_tokens: int = typer.Option(128, "--output-tokens", help="max_tokens per request."),
    prompts: Path | None = typer.Option(None, "--prompts", help="ShareGPT JSON or JSONL prompt file."),
    concurrency: list[str] = typer.Option([], "--concurrency", "-c", help="Closed-loop level(s); a list sweeps."),
    request_rate: list[str] = typer.Option([], "--request-rate", help="Open-loop rate(s), req/s."),
    arrival: str = typer.Option("poisson", "--arrival", help="poisson or constant (open loop)."),
    num_prompts: int = typer.Option(100, "--num-prompts", help="Measured requests per arm per load point."),
    max_seconds: float | None = typer.Option(None, "--max-seconds", help="Time cap per load point."),
    warmup: int = typer.Option(2, "--warmup", help="Warmup requests per arm per point (excluded)."),
    temperature: str = typer.Option("0", "--temperature", help="Pinned temperature, or 'unset'."),
    seed: int = typer.Option(0, "--seed", help="Seed of the synthetic prompts and of each request."),
    ignore_eos: bool = typer.Option(False, "--ignore-eos", help="Fixed output length (distorts acceptance)."),
    min_tokens: bool = typer.Option(False, "--min-tokens", help="Also send min_tokens = output tokens."),
    continuous_usage: bool = typer.Option(True, "--continuous-usage/--no-continuous-usage",
                                          help="Ask for usage on every chunk (exact tokens per chunk)."),
    timeout: float = typer.Option(600.0, "--timeout", help="Per-request timeout, seconds."),
    aux_timeout: float = typer.Option(5.0, "--aux-timeout",
                                      help="Total deadline (s) of each tokenize / metrics / health / version call."),
    prompt_deadline: float = typer.Option(300.0, "--prompt-deadline",
                                          help="Total seconds for building or reading all prompts (every /tokenize "
                                               "call together, or the --prompts file)."),
    max_error_rate: float = typer.Option(0.10, "--max-error-rate",
                                         help="Exit 3 when an arm's failed share exceeds this (0 completed always)."),
    test_request: bool = typer.Option(True, "--test-request/--no-test-request",
                                      help="Send one request per arm first; stop with the server's reason."),
    round_size: int | None = typer.Option(None, "--round-size", help="Prompts per paired round."),
    slo: list[str] = typer.Option([], "--slo", help="Goodput SLO, e.g. ttft_ms=500 (repeatable)."),
    api_key_env: str | None = typer.Option(None, "--api-key-env", help="Env var holding the API key."),
    out: Path | None = typer.Option(None, "--out", help="Output folder (default runs-scratch/<run-id>)."),
    record: bool = typer.Option(False, "--record", help="Write a ledger benchmark record of the run."),
    ledger: Path | None = LedgerOption,
    record_id: str | None = typer.Option(None, "--record-id", help="Record id (default: bench-<UTC time>)."),
    record_model: str | None = typer.Option(None, "--record-model", help="Ledger model id."),
    record_engine: str | None = typer.Option(None, "--record-engine", help="Ledger engine id."),
    record_accelerator: str | None = typer.Option(None, "--record-accelerator", help="Ledger accelerator id."),
    record_title: str = typer.Option("", "--record-title", help="Title of the record."),
    overwrite: bool = typer.Option(False, "--overwrite", help="Replace an existing record / run of that id."),
    record_incomplete: bool = typer.Option(False, "--record-incomplete",
                                           help="Record an interrupted run too, as complete: false."),
    as_json: bool = typer.Option(False, "--json", help="Machine output on stdout, no progress bar."),
    event_loop: str | None = typer.Option(None, "--event-loop",
                                          help="uvloop (the default where installed) or asyncio."),
) -> None:
    """Run paired, interleaved arms against OpenAI-compatible servers and write raw data + summaries."""
    from benchledger.bench.eventloop import default_event_loop
    from benchledger.bench.load import parse_load_points
    from benchledger.bench.outputs import run_files_in
    from benchledger.bench.record import RecordTarget, check_target
    from benchledger.bench.run import ArmSpec, RunConfig, normalise_url
    from benchledger.bench.session import EXIT_INTERRUPTED, EXIT_RUN_FAILED, new_run_id
    from benchledger.bench.workload import RequestSpec, load_prompt_file, synthetic_prompts

    urls = _pairs(arm, "--arm")
    if base_url:
        if urls:
            raise BenchError("give --arm or --base-url, not both")
        urls = {"base": base_url}
    if not urls:
        raise BenchError("no server: give --arm NAME=URL (repeatable) or --base-url URL")
    launches, metrics, specs = _pairs(launch, "--launch"), _pairs(metrics_url, "--metrics-url"), _pairs(spec, "--spec")
    for flag, names in (("--launch", launches), ("--metrics-url", metrics), ("--spec", specs)):
        unknown = set(names) - set(urls)
        if unknown:
            raise BenchError(f"{flag}: no arm named {', '.join(sorted(unknown))}")
    arms = []
    for name, url in urls.items():
        method, k = _spec(specs[name], name) if name in specs else (None, None)
        arms.append(ArmSpec(name=name, url=normalise_url(url), metrics_url=metrics.get(name), spec_method=method,
                            spec_k=k, launch=launches.get(name)))
    if endpoint not in ("completions", "chat"):
        raise BenchError("--endpoint must be 'completions' or 'chat'")
    if arrival not in ("poisson", "constant"):
        raise BenchError("--arrival must be 'poisson' or 'constant'")
    try:
        points = parse_load_points(_numbers(concurrency or ["1"] if not request_rate else concurrency, int),
                                   _numbers(request_rate, float), arrival)  # type: ignore[arg-type]
    except ValueError as exc:
        raise BenchError(str(exc)) from None
    temp = None if temperature.lower() in ("unset", "none") else float(temperature)
    request = RequestSpec(endpoint=endpoint, model=model, output_tokens=output_tokens,  # type: ignore[arg-type]
                          temperature=temp, seed=seed, ignore_eos=ignore_eos, min_tokens=min_tokens,
                          continuous_usage=continuous_usage)
    slos = {k: float(v) for k, v in _pairs(slo, "--slo").items()}
    api_key = None
    if api_key_env:
        api_key = os.environ.get(api_key_env)
        if not api_key:
            raise BenchError(f"--api-key-env {api_key_env}: that environment variable is empty or unset")
    run_id = record_id or new_run_id("bench")
    target = None
    if record:
        from benchledger.ledger.paths import resolve_ledger_dir

        missing = [f for f, v in (("--record-model", record_model), ("--record-engine", record_engine),
                                  ("--record-accelerator", record_accelerator)) if not v]
        if missing:
            raise BenchError(f"--record needs the ledger ids: {', '.join(missing)}")
        root = resolve_ledger_dir(ledger)
        target = RecordTarget(ledger_root=root, record_id=run_id, model=record_model or "",
                              engine=record_engine or "", accelerator=record_accelerator or "", title=record_title,
                              overwrite=overwrite, record_incomplete=record_incomplete)
        with _interruptible():
            check_target(target)  # before anything runs
    elif record_id is not None:
        raise BenchError("--record-id needs --record")
    if not prompt_deadline > 0:
        raise BenchError("--prompt-deadline must be a positive number of seconds")
    if max_error_rate < 0 or max_error_rate > 1:
        raise BenchError("--max-error-rate must be between 0 and 1")
    event_loop = event_loop or default_event_loop()
    if event_loop not in ("asyncio", "uvloop"):
        raise BenchError("--event-loop must be asyncio or uvloop")
    out = out or Path("runs-scratch") / run_id
    if found := run_files_in(out):
        raise BenchError(f"--out {out} already holds another run's files ({found[0]}{' …' if len(found) > 1 else ''}): "
                         "give a new folder (a run never mixes its raw data with another's)")
    total = num_prompts + warmup
    config = RunConfig(arms=arms, request=request, points=points, prompts=[], num_prompts=num_prompts, out=out,
                       max_seconds=max_seconds, warmup=warmup, timeout=timeout, round_size=round_size, seed=seed,
                       slos_ms=slos, api_key=api_key, synthetic=prompts is None, aux_deadline=aux_timeout,
                       prompt_deadline=prompt_deadline,
                       test_request=test_request,
                       event_loop="uvloop" if event_loop == "uvloop" else "asyncio")
    if prompts is not None:
        with _interruptible():  # only the prompts the run sends are read
            config.prompts = load_prompt_file(prompts, total, deadline=time.monotonic() + prompt_deadline)
    else:
        config.prompt_builder = lambda url, aux: synthetic_prompts(total, input_tokens, url, model, seed, aux)
    try:
        result = _run_with_progress(config, target, as_json)
        problems = result.problems(max_error_rate)
        _render(result, as_json, problems)
    except BenchInterrupted as exc:
        console(stderr=True).print(f"[red]interrupted[/]: {exc}")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except KeyboardInterrupt:  # a signal outside the session's handlers (its start, its end, the rendering)
        console(stderr=True).print(f"[red]interrupted[/]: whatever was measured is in {config.out}")
        raise typer.Exit(EXIT_INTERRUPTED) from None
    if result.interrupted:
        raise typer.Exit(EXIT_INTERRUPTED)
    if problems:
        raise typer.Exit(EXIT_RUN_FAILED)


@contextlib.contextmanager
def _interruptible() -> Iterator[None]:
    """Ctrl-C in a synchronous step before the run (reading the ledger, a prompt file): exit 130, one line."""
    try:
        yield
    except KeyboardInterrupt:
        console(stderr=True).print("[red]interrupted[/]: before the run started (nothing was measured)")
        raise typer.Exit(BenchInterrupted.exit_code) from None


def _run_with_progress(config: Any, target: Any, quiet: bool) -> Any:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from benchledger.bench.session import run_session

    if quiet:
        return run_session(config, record=target)
    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total} req"),
               TextColumn("{task.fields[tps]:.0f} tok/s  errors {task.fields[errors]}"), TimeElapsedColumn())
    with Progress(*columns, console=console(stderr=True), transient=False) as bar:
        tasks: dict[tuple[str, str], Any] = {}
        started: dict[tuple[str, str], float] = {}

        def on_event(event: dict[str, Any]) -> None:
            import time

            if event.get("type") != "request":
                return
            key = (event["point"], event["arm"])
            if key not in tasks:
                tasks[key] = bar.add_task(f"{event['point']} {event['arm']}", total=event["total"], tps=0.0, errors=0)
                started[key] = time.perf_counter()
            elapsed = max(time.perf_counter() - started[key], 1e-9)
            bar.update(tasks[key], completed=event["done"], tps=event["tokens"] / elapsed, errors=event["errors"])

        return run_session(config, on_event, record=target)


def _fmt(value: Any, digits: int = 2) -> str:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    return f"{value:.{digits}f}" if ok else "—"


def _render(result: Any, as_json: bool, problems: list[str] | None = None) -> None:
    problems = problems or []
    if as_json:
        payload = {"out": str(result.out), "interrupted": result.interrupted, "problems": problems,
                   "record": str(result.record_path) if result.record_path else None,
                   "record_skipped": result.record_skipped,
                   "points": [{"summaries": {k: v.flat() for k, v in o["summaries"].items()},
                               "comparison": o["comparison"]} for o in result.outputs]}
        from benchledger.bench.outputs import dumps_strict

        print(dumps_strict(payload))
        return
    con = console()
    for o in result.outputs:
        comp = o["comparison"]
        rows = []
        for name, summary in o["summaries"].items():
            s = summary.flat()
            c = comp["arms"].get(name)
            ok_c = c is not None and "output_throughput_speedup" in c
            sp = "baseline" if c is None else _speedup(c["output_throughput_speedup"]) if ok_c else "—"
            verdict = "" if not ok_c else c["output_throughput_speedup"]["verdict"]
            rows.append((name, s["completed"], s["failed"], _fmt(s.get("output_throughput"), 1),
                         _fmt(s.get("median_ttft_ms")), _fmt(s.get("median_tpot_ms")),
                         _fmt(s.get("spec_decode_acceptance_rate")), _fmt(s.get("spec_decode_acceptance_length")),
                         sp, verdict))
        print_table(con, ["arm", "ok", "failed", "out tok/s", "TTFT med ms", "TPOT med ms", "accept", "AL",
                          "paired speedup tok/s [95% CI]", "verdict"], rows,
                    title=f"{comp['load_point']} (stopped by {comp['stopped_by']})")
        for name, summary in o["summaries"].items():
            for w in summary.warnings:
                con.print(f"[yellow]warning[/] {comp['load_point']} {name}: {w}")
    con.print(f"outputs: {result.out}")
    if result.record_path:
        con.print(f"record: {result.record_path}")
    if result.record_skipped:
        con.print(f"[yellow]record[/]: {result.record_skipped}")
    if result.interrupted:
        con.print("[red]interrupted[/]: partial results saved; summaries are marked complete: false")
    for line in problems:
        con.print(f"[red]failed[/] {line}")


def _speedup(c: dict[str, Any]) -> str:
    if c["estimate"] is None:
        return "—"
    ci = c["ci95"]
    return f"{c['estimate']:.2f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")


def demo(
    workdir: Path | None = typer.Option(None, "--workdir", file_okay=False,
                                        help="Scratch folder (default: a new temp folder, removed unless --keep)."),
    seconds: float = typer.Option(18.0, "--seconds", help="Measured seconds per concurrency level."),
    keep: bool = typer.Option(False, "--keep", help="Keep the temp scratch folder (models, ledger copy, runs, site)."),
    brief: bool = typer.Option(False, "--brief", help="Only the progress lines and the paired result per level."),
    ledger: Path | None = LedgerOption,
    as_json: bool = typer.Option(False, "--json", help="Machine output on stdout."),
) -> None:
    """Generate a tiny model + draft, start two llama.cpp servers, run a paired sweep, record and audit it.

    The record is written into a copy of the ledger (--ledger, default the bundled one) in the scratch folder.
    """
    import shutil
    import tempfile

    from benchledger.bench.demo import run_demo
    from benchledger.ledger.paths import resolve_ledger_dir

    source = resolve_ledger_dir(ledger)
    created = workdir is None
    scratch = workdir or Path(tempfile.mkdtemp(prefix="benchledger-demo-"))
    remove = created and not keep
    con = console(stderr=as_json)
    con.print(f"benchledger demo: scratch folder {scratch} (~160 MB: tiny models, a copy of the ledger, raw runs, "
              f"site){'; removed at the end unless --keep' if remove else ''}", markup=False, highlight=False)
    con.print("generating a tiny model and draft, starting two llama.cpp servers on 127.0.0.1 …")
    levels: list[str] = []

    def on_event(event: dict[str, Any]) -> None:
        if event.get("type") == "point":
            levels.append(event["point"])
            con.print(f"level {event['point']}: base and spec interleaved in {event['rounds']} rounds, up to "
                      f"{seconds:g} s …", highlight=False)

    try:
        result = run_demo(scratch, seconds_per_point=seconds, progress=on_event, ledger_source=source)
        if brief and not as_json:
            print_table(con, *paired_rows(result.session.outputs), title="paired result (spec vs base, same prompts)")
        else:
            _render(result.session, as_json)
        if not as_json:
            for f in result.findings:
                if f.severity != "info":
                    con.print(f"{f.severity} {f.code} {f.field}: {f.message}", markup=False, highlight=False)
            con.print(f"audit of the new record {result.record_id}: {result.audit_errors} error(s)", highlight=False)
            if not remove:
                con.print(f"scratch ledger: {result.ledger}", markup=False, highlight=False)
                if result.site is not None:
                    con.print(f"site: {result.site / 'index.html'}", markup=False, highlight=False)
                elif result.site_note:
                    con.print(result.site_note)
    finally:
        if remove:
            size = sum(p.stat().st_size for p in scratch.rglob("*") if p.is_file())
            shutil.rmtree(scratch, ignore_errors=True)
            con.print(f"removed the scratch folder {scratch} ({size / 1e6:.0f} MB; --keep keeps it)",
                      markup=False, highlight=False)
    if result.audit_errors:
        raise typer.Exit(1)


def paired_rows(outputs: list[dict[str, Any]]) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Per load point: base and spec output tok/s, the paired speedup with its 95 % CI, verdict, acceptance."""
    columns = ["level", "base tok/s", "spec tok/s", "paired speedup [95% CI]", "verdict", "acceptance"]
    rows = []
    for o in outputs:
        comp = o["comparison"]
        names = list(o["summaries"])
        base, spec = (o["summaries"][n].flat() for n in names[:2])
        c = comp["arms"].get(names[1], {}).get("output_throughput_speedup")
        rows.append((comp["load_point"], _fmt(base.get("output_throughput"), 1),
                     _fmt(spec.get("output_throughput"), 1), _speedup(c) if c else "—",
                     c["verdict"] if c else "", _fmt(spec.get("spec_decode_acceptance_rate"))))
    return columns, rows
