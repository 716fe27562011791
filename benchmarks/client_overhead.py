"""Client overhead: our harness vs vLLM ``bench serve``'s client design, against the same fake server.

For each concurrency level one fake OpenAI server (tests/fakes/openai_server.py) runs in its own process, pinned
to CPU 1; each client runs in a fresh process pinned to CPU 0 (the budget is "on one core"), one after the
other, alternating which goes first. The server logs, on the client's clock (``time.perf_counter``, system-wide
monotonic on Linux), when it read each request and wrote each chunk — that log is the truth. Per client:

- recv: receive-side error = client's first-chunk timestamp − server's write time of that chunk. Pure client
  cost (loopback delivery is microseconds): event-loop delay and per-chunk work before the stamp.
- send: send-side delay = server's read time of the request − client's send timestamp. Whose it is depends on
  the design: ours stamps after the bytes are written, so this is the fake server's accept/read backlog plus
  loopback; vLLM's design stamps before ``session.post`` (pool wait, connect, serialisation included).
- TTFT / TPOT error = client's median − truth median (truth TTFT: first write − read; truth TPOT, vLLM's
  definition as both clients compute it: (last token chunk write − first) / (tokens − 1)). TTFT error ≈ recv + send.
- CPU s / 1k tok: the client process's CPU time over warmup + measured requests per 1,000 output tokens (ours:
  ``Runner.run``, after the engine-version query a real run makes first; vLLM's design: its closed loop).
- srv late p99: how far behind its own schedule the fake server wrote (p99 over requests of each request's
  worst chunk); small means the server kept up and the truth is a clean schedule.
- lag p99: our harness's event-loop lag (summary ``client_overhead``).

``ours`` runs on the event loop a plain ``benchledger bench`` uses (``bench.eventloop.default_event_loop``:
uvloop where installed); ``ours-asyncio`` and ``ours-uvloop`` name the loop.

Budget (issue 3): |median TTFT / TPOT error| < 1 ms up to 256 streams on one core, and no worse than vLLM's
client design at any concurrency.

    python benchmarks/client_overhead.py [--levels 1,16,64,256,512] [--tokens 32] [--step 0.02]
        [--clients ours,vllm[,ours-asyncio][,ours-uvloop]] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CLIENT_CPU, SERVER_CPU = 0, 1
CLIENTS = ("ours", "vllm")
OPTIONAL_CLIENTS = ("ours-asyncio", "ours-uvloop")  # our harness on a named event loop


def _pin(cpu: int) -> bool:
    if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > max(CLIENT_CPU, SERVER_CPU):
        os.sched_setaffinity(0, {cpu})
        return True
    return False


def _workload(n: int, tokens: int) -> tuple[Any, list[Any]]:
    from benchledger.bench.workload import Prompt, RequestSpec

    prompts = [Prompt(text=f"prompt number {i}", input_tokens=None, input_tokens_source="bench") for i in range(n)]
    return RequestSpec(output_tokens=tokens), prompts


def client_loop(client: str) -> str:
    """The event loop an ``ours*`` client runs on."""
    from benchledger.bench.eventloop import default_event_loop

    return {"ours-asyncio": "asyncio", "ours-uvloop": "uvloop"}.get(client) or default_event_loop()


def worker_ours(url: str, level: int, n: int, warmup: int, tokens: int, tmp: Path,
                loop: str = "asyncio") -> dict[str, Any]:
    """Our harness (``Runner``, exactly as ``benchledger bench`` drives it), one arm, one load point."""
    import benchledger.bench.scrape  # noqa: F401  (imported before timing, as in a real run)
    from benchledger.bench import eventloop
    from benchledger.bench.launch import engine_info
    from benchledger.bench.load import LoadPoint
    from benchledger.bench.outputs import read_requests
    from benchledger.bench.report import client_overhead
    from benchledger.bench.run import ArmSpec, RunConfig, Runner
    from benchledger.metrics import tpot, ttft

    request, prompts = _workload(n + warmup, tokens)
    cfg = RunConfig(arms=[ArmSpec("base", url)], request=request, points=[LoadPoint(concurrency=level)],
                    prompts=prompts, num_prompts=n, out=tmp, warmup=warmup, timeout=120.0, round_size=n,
                    event_loop="uvloop" if loop == "uvloop" else "asyncio")
    # As a real run does before its first load point (bench/session.py ``_setup``): ask the engine's version,
    # which also loads the auxiliary HTTP client (httpx + httpcore) that the run's scrapes then use.
    eventloop.run(engine_info(url, cfg.aux()))
    runner = Runner(cfg)
    cpu0 = time.process_time()
    result = eventloop.run(runner.run(), cfg.event_loop)[0]
    cpu = time.process_time() - cpu0
    recs = read_requests(tmp / "base")
    measured = [r for r in recs if r["phase"] == "measured" and r["ok"]]
    o = runner.origin
    rows = [{"key": r["response_id"], "t_send": o + r["t_sent"], "t_first": o + r["chunk_times"][0],
             "ttft": ttft(r), "tpot": tpot(r)} for r in measured]
    overhead = client_overhead([r for r in recs if r["phase"] == "measured"], result.loop_lag)
    return {"cpu_s": cpu, "tokens": sum(r["output_tokens"] for r in recs if r["ok"]), "rows": rows,
            "failed": sum(1 for r in recs if not r["ok"]), "loop_lag_ms_p99": overhead["loop_lag_ms_p99"]}


def worker_vllm(url: str, level: int, n: int, warmup: int, tokens: int, tmp: Path) -> dict[str, Any]:
    """The vLLM ``bench serve`` client design (benchmarks/vllm_design_client.py), same payloads."""
    sys.path.insert(0, str(Path(__file__).parent))
    from vllm_design_client import run_closed_loop

    request, prompts = _workload(n + warmup, tokens)
    payloads = [request.payload(p, i) for i, p in enumerate(prompts)]
    cpu0 = time.process_time()
    warm, outs = asyncio.run(run_closed_loop(url + "/v1/completions", payloads[n:], payloads[:n], level, "ref"))
    cpu = time.process_time() - cpu0
    ok = [o for o in outs if o.success]
    rows = [{"key": o.request_id, "t_send": o.start_time, "t_first": o.start_time + o.ttft, "ttft": o.ttft,
             "tpot": o.tpot} for o in ok]
    return {"cpu_s": cpu, "tokens": sum(o.output_tokens for o in warm + outs if o.success), "rows": rows,
            "failed": sum(1 for o in warm + outs if not o.success), "loop_lag_ms_p99": None}


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _p99(values: list[float]) -> float:
    from benchledger.metrics import percentile

    return percentile(values, 99)


def evaluate(out: dict[str, Any], truth_by_key: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Client vs truth for one client at one level (all in ms except CPU)."""
    recv, send, c_ttft, t_ttft, c_tpot, t_tpot, late = [], [], [], [], [], [], []
    for row in out["rows"]:
        t = truth_by_key[row["key"]]
        recv.append((row["t_first"] - t["chunk_times"][0]) * 1e3)
        send.append((t["t_read"] - row["t_send"]) * 1e3)
        c_ttft.append(row["ttft"])
        t_ttft.append(t["chunk_times"][0] - t["t_read"])
        late.append(t["late_max"] * 1e3)
        n = sum(t["chunk_tokens"])
        if row["tpot"] is not None and n > 1:
            c_tpot.append(row["tpot"])
            t_tpot.append((t["chunk_times"][-1] - t["chunk_times"][0]) / (n - 1))
    return {
        "ok": len(out["rows"]), "failed": out["failed"],
        "recv_ms_median": _median(recv), "recv_ms_p99": _p99(recv),
        "send_ms_median": _median(send), "send_ms_p99": _p99(send),
        "ttft_err_ms": (_median(c_ttft) - _median(t_ttft)) * 1e3,
        "tpot_err_ms": (_median(c_tpot) - _median(t_tpot)) * 1e3,
        "cpu_s_per_1k_tokens": out["cpu_s"] / out["tokens"] * 1000 if out["tokens"] else float("nan"),
        "server_late_ms_p99": _p99(late),
        "loop_lag_ms_p99": out["loop_lag_ms_p99"],
    }


def measure(level: int, args: argparse.Namespace, tmp: Path, order: list[str]) -> dict[str, dict[str, Any]]:
    from tests.fakes.procs import fake_server_process, read_truth

    n = max(args.waves * level, args.min_requests)
    warmup = level
    results: dict[str, dict[str, Any]] = {}
    with fake_server_process(tmp, name=f"c{level}", ttft=args.ttft, step=args.step, cpu=SERVER_CPU) as (
            url, _proc, truth_file):
        for client in order:
            out_file = tmp / f"{client}-{level}.json"
            cmd = [sys.executable, __file__, "--worker", client, "--url", url, "--level", str(level), "--n", str(n),
                   "--warmup", str(warmup), "--tokens", str(args.tokens), "--worker-out", str(out_file)]
            subprocess.run(cmd, check=True)
            results[client] = json.loads(out_file.read_text())
        time.sleep(0.3)
        truth = read_truth(truth_file)
    by_key = {**truth, **{t["request_id"]: t for t in truth.values() if t.get("request_id")}}
    return {client: evaluate(out, by_key) for client, out in results.items()}


def _f(value: Any, width: int, digits: int = 3) -> str:
    return f"{'—':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def print_table(rows: list[tuple[int, dict[str, dict[str, Any]]]], clients: list[str]) -> None:
    head = (f"{'streams':>7} {'client':>12} {'ok':>5} {'recv med':>9} {'recv p99':>9} {'send med':>9} "
            f"{'send p99':>9} {'TTFT err':>9} {'TPOT err':>9} {'CPU s/1k':>9} {'srv late':>9} {'lag p99':>8}")
    print("all times ms; recv/send/errors vs the server's log; srv late = fake server behind schedule (p99)")
    print(head)
    for level, res in rows:
        for client in clients:
            m = res[client]
            print(f"{level:>7} {client:>12} {m['ok']:>5} {_f(m['recv_ms_median'], 9)} {_f(m['recv_ms_p99'], 9)} "
                  f"{_f(m['send_ms_median'], 9)} {_f(m['send_ms_p99'], 9)} {_f(m['ttft_err_ms'], 9)} "
                  f"{_f(m['tpot_err_ms'], 9)} {_f(m['cpu_s_per_1k_tokens'], 9, 4)} "
                  f"{_f(m['server_late_ms_p99'], 9)} {_f(m['loop_lag_ms_p99'], 8, 2)}")
    print("\nratios ours / vLLM design (|median TTFT error|, |median TPOT error|, CPU); budget check")
    print(f"{'streams':>7} {'TTFT err':>9} {'TPOT err':>9} {'CPU':>7}  verdict")
    for level, res in rows:
        a, b = res["ours"], res["vllm"]
        ratios = [abs(a[k]) / abs(b[k]) if b[k] else float("inf") for k in ("ttft_err_ms", "tpot_err_ms")]
        cpu = a["cpu_s_per_1k_tokens"] / b["cpu_s_per_1k_tokens"]
        under = level > 256 or (abs(a["ttft_err_ms"]) < 1 and abs(a["tpot_err_ms"]) < 1)
        no_worse = all(abs(a[k]) <= abs(b[k]) + 0.05 for k in ("ttft_err_ms", "tpot_err_ms"))
        verdict = ("ok" if under and no_worse else
                   "OVER BUDGET" if not under else "worse than vLLM design")
        print(f"{level:>7} {ratios[0]:>9.2f} {ratios[1]:>9.2f} {cpu:>7.2f}  {verdict}")
    by_loop: dict[str, str] = {}
    for client in clients:
        if client.startswith("ours"):
            by_loop.setdefault(client_loop(client), client)
    if {"asyncio", "uvloop"} <= set(by_loop):
        print(f"\nours on uvloop ({by_loop['uvloop']}) / ours on asyncio ({by_loop['asyncio']}) "
              "(CPU per 1k tokens; |median TTFT error|)")
        for level, res in rows:
            a, u = res[by_loop["asyncio"]], res[by_loop["uvloop"]]
            print(f"{level:>7} CPU {u['cpu_s_per_1k_tokens'] / a['cpu_s_per_1k_tokens']:>5.2f}  "
                  f"TTFT err {abs(u['ttft_err_ms']) / max(abs(a['ttft_err_ms']), 1e-9):>5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", default="1,16,64,256,512")
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--ttft", type=float, default=0.05)
    parser.add_argument("--step", type=float, default=0.02)
    parser.add_argument("--waves", type=int, default=3, help="measured requests = waves × streams")
    parser.add_argument("--min-requests", type=int, default=64)
    parser.add_argument("--json", type=Path, default=None, help="also write the results here")
    parser.add_argument("--clients", default=",".join(CLIENTS),
                        help=f"comma-separated, from {', '.join(CLIENTS + OPTIONAL_CLIENTS)} (ours and vllm required)")
    parser.add_argument("--worker", choices=CLIENTS + OPTIONAL_CLIENTS, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--level", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--warmup", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--worker-out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _pin(CLIENT_CPU)
        tmp = Path(tempfile.mkdtemp(prefix=f"overhead-{args.worker}-"))
        try:
            if args.worker == "vllm":
                out = worker_vllm(args.url, args.level, args.n, args.warmup, args.tokens, tmp)
            else:
                out = worker_ours(args.url, args.level, args.n, args.warmup, args.tokens, tmp,
                                  client_loop(args.worker))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        args.worker_out.write_text(json.dumps(out))
        return
    clients = args.clients.split(",")
    if not {"ours", "vllm"} <= set(clients) or not set(clients) <= set(CLIENTS + OPTIONAL_CLIENTS):
        parser.error(f"--clients must include ours and vllm, from {', '.join(CLIENTS + OPTIONAL_CLIENTS)}")
    if not _pin(CLIENT_CPU):
        print("note: fewer than 2 CPUs or no sched_setaffinity — client and server are not pinned apart")
    tmp = Path(tempfile.mkdtemp(prefix="client-overhead-"))
    rows = []
    try:
        for i, level in enumerate(int(x) for x in args.levels.split(",")):
            order = clients if i % 2 == 0 else clients[::-1]
            rows.append((level, measure(level, args, tmp, order)))
            print(f"  measured {level} streams", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"ours runs on {client_loop('ours')} (the default event loop)")
    print_table(rows, clients)
    if args.json:
        args.json.write_text(json.dumps([{"streams": lv, **res} for lv, res in rows], indent=2))


if __name__ == "__main__":
    main()
