"""The harness against the fake OpenAI server (real sockets): timing accuracy, acceptance, faults, SIGINT."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tests.fakes.openai_server import FakeConfig, FakeServer
from tests.fakes.procs import fake_server_process, read_truth, wait_truth

from benchledger.bench.load import LoadPoint
from benchledger.bench.looplag import LAG_INTERVAL_S
from benchledger.bench.outputs import read_requests
from benchledger.bench.report import write_point_outputs
from benchledger.bench.run import ArmSpec, RunConfig, Runner
from benchledger.bench.session import run_session
from benchledger.bench.workload import Prompt, RequestSpec
from benchledger.metrics import tpot, ttft

PROMPTS = [Prompt(text=f"prompt {i}", input_tokens=None, input_tokens_source="test") for i in range(64)]


def config(tmp: Path, arms: list[ArmSpec], *, n: int = 8, conc: int = 2, out_tokens: int = 12,
           extra: dict[str, Any] | None = None, timeout: float = 10.0, warmup: int = 1) -> RunConfig:
    return RunConfig(arms=arms, request=RequestSpec(output_tokens=out_tokens, extra=extra or {}),
                     points=[LoadPoint(concurrency=conc)], prompts=PROMPTS, num_prompts=n, out=tmp / "out",
                     warmup=warmup, timeout=timeout, round_size=conc)


TRANSPORT_S = 0.002
"""Loopback delivery plus parsing of one chunk on an idle machine (measured: well under 1 ms)."""


def test_timings_match_server_truth(tmp_path: Path) -> None:
    """Per request, the client's timestamps against the server's truth log on the shared monotonic clock.

    A chunk is never stamped before the server wrote it. It is stamped late by at most what this run measured
    of its own delays: the client loop's worst wake-up overshoot (a stall that covers a sample's due time is at
    most one sampling interval longer than that sample's overshoot), the server's worst lateness against its
    own schedule, and the transport. No fixed tolerance: on a loaded machine the bound grows with the load.
    """
    with fake_server_process(tmp_path, ttft=0.03, step=0.004) as (url, _, truth_file):
        cfg = config(tmp_path, [ArmSpec("base", url)], n=16, conc=4, out_tokens=20)
        runner = Runner(cfg)
        result = asyncio.run(runner.run())[0]
        summary = write_point_outputs(result, cfg)["summaries"]["base"]
        truth = wait_truth(truth_file, 16 + 1)
    records = [r for r in read_requests(tmp_path / "out" / "base") if r["phase"] == "measured"]
    assert len(records) == 16 and all(r["ok"] for r in records)
    client_lag = max((lag for _, lag in result.loop_lag), default=0.0)
    server_late = max(t["late_max"] for t in truth.values())
    bound = TRANSPORT_S + LAG_INTERVAL_S + max(client_lag, 0.0) + max(server_late, 0.0)
    for r in records:
        t = truth[r["response_id"]]
        assert r["chunk_tokens"] == t["chunk_tokens"]
        delays = [runner.origin + c - s for c, s in zip(r["chunk_times"], t["chunk_times"], strict=True)]
        assert min(delays) >= 0.0, "a chunk stamped before the server wrote it: the clocks or stamps are wrong"
        assert max(delays) <= bound, (max(delays), bound, client_lag, server_late)
        true_ttft = t["chunk_times"][0] - t["t_read"]
        true_tpot = (t["chunk_times"][-1] - t["chunk_times"][0]) / (sum(t["chunk_tokens"]) - t["chunk_tokens"][0])
        rest = sum(t["chunk_tokens"]) - t["chunk_tokens"][0]
        # client TTFT − truth = first chunk's delay + (server read − client send stamp): each side within bound
        assert abs(ttft(r) - true_ttft) <= 2 * bound
        assert abs(tpot(r) - true_tpot) <= 2 * bound / rest
    assert summary["completed"] == 16 and summary["failed"] == 0 and summary["complete"]
    assert summary["tokens_per_chunk"] == 1.0
    assert summary["client_overhead"]["loop_lag_samples"] > 0


def test_clock_json_places_every_request_in_wall_clock_time(tmp_path: Path) -> None:
    """requests.jsonl times + clock.json's origin = wall-clock times, inside the span the test saw."""
    wall_before = time.time()
    with FakeServer(FakeConfig(ttft=0.005, step=0.002)) as srv:
        run_session(config(tmp_path, [ArmSpec("base", srv.url)], n=4, out_tokens=4))
    wall_after = time.time()
    folder = tmp_path / "out" / "base"
    clock = json.loads((folder / "clock.json").read_text())
    slack = clock["pairing_uncertainty_s"]
    records = read_requests(folder)
    assert records
    for r in records:
        for t in (r["t_start"], r["t_sent"], r["t_end"], *r["chunk_times"]):
            assert wall_before - slack <= clock["unix_time_at_origin"] + t <= wall_after + slack


def test_spec_counters_chunks_and_truth_agree(tmp_path: Path) -> None:
    with FakeServer(FakeConfig(ttft=0.01, step=0.003)) as base, \
         FakeServer(FakeConfig(ttft=0.01, step=0.003, k=3, accept_pattern=[3, 1, 2, 0])) as spec:
        arms = [ArmSpec("base", base.url), ArmSpec("spec", spec.url, spec_method="mtp", spec_k=3)]
        cfg = config(tmp_path, arms, n=12, conc=2, out_tokens=25)
        session = run_session(cfg)
    s = session.outputs[0]["summaries"]["spec"]
    records = [r for r in read_requests(tmp_path / "out" / "spec") if r["phase"] == "measured"]
    # truth from the streamed chunks: every chunk after the first is one step with (tokens − 1) accepted
    steps = [n for r in records for n in r["chunk_tokens"][1:]]
    accepted = sum(n - 1 for n in steps)
    assert s["spec_decode_num_drafts"] == len(steps)
    assert s["spec_decode_accepted_tokens"] == accepted
    assert s["spec_decode_draft_tokens"] == 3 * len(steps)
    assert s["spec_decode_acceptance_length"] == pytest.approx(1 + accepted / len(steps))
    # per-position survival is non-increasing and position 0 ≥ rate
    pp = s["spec_decode_per_position_acceptance_rates"]
    assert len(pp) == 3 and pp[0] >= pp[1] >= pp[2]
    # observed tokens per step (chunks after the first) equal the counters' mean acceptance length
    assert sum(steps) / len(steps) == pytest.approx(s["spec_decode_acceptance_length"])
    assert not any(w.startswith("consistency") for w in s["warnings"])
    # per-token ITL spreads each chunk gap over that chunk's tokens: one sample per token, the same total time
    # (not "per-token median < per-chunk median": under load chunks arrive together and every gap is 0)
    gaps = [b - a for r in records for a, b in itertools.pairwise(r["chunk_times"])]
    assert s["mean_itl_ms"] * len(steps) == pytest.approx(1000 * sum(gaps))
    assert s["mean_itl_per_token_ms"] * sum(steps) == pytest.approx(1000 * sum(gaps))
    comp = session.outputs[0]["comparison"]["arms"]["spec"]
    assert comp["tpot_speedup"]["verdict"] == "faster"
    assert json.loads((tmp_path / "out" / "comparison.json").read_text())["baseline"] == "base"
    assert (tmp_path / "out" / "spec" / "metrics-after.prom").exists()


def test_coalescing_is_flagged_when_speculation_is_off(tmp_path: Path) -> None:
    with FakeServer(FakeConfig(ttft=0.01, step=0.002, k=2, accept_pattern=[2])) as srv:
        session = run_session(config(tmp_path, [ArmSpec("base", srv.url)], n=4, out_tokens=10))
    warnings = session.outputs[0]["summaries"]["base"]["warnings"]
    assert any(w.startswith("chunk coalescing") for w in warnings)


@pytest.mark.parametrize(
    ("fault", "expect"),
    [("http_429", "HTTP 429"), ("http_500", "HTTP 500"), ("invalid_json", "invalid JSON"),
     ("malformed_sse", "invalid JSON"), ("drop", "connection closed"), ("stall", "timeout")],
)
def test_faults_are_accounted(tmp_path: Path, fault: str, expect: str) -> None:
    with FakeServer(FakeConfig(ttft=0.005, step=0.002)) as srv:
        # only the stall waits for the client's timeout; the others must fail for their own reason, however slow
        cfg = config(tmp_path, [ArmSpec("base", srv.url)], n=4, conc=2, extra={"fake_fault": fault},
                     timeout=1.0 if fault == "stall" else 30.0, warmup=0)
        session = run_session(cfg)
    records = read_requests(tmp_path / "out" / "base")
    assert len(records) == 4
    assert all(not r["ok"] and expect in r["error"] for r in records), [r["error"] for r in records]
    s = session.outputs[0]["summaries"]["base"]
    assert s["failed"] == 4 and s["completed"] == 0 and s["complete"] is False
    assert sum(s["errors_by_reason"].values()) == 4
    if fault in ("invalid_json", "stall"):
        assert all(len(r["chunk_times"]) >= 1 for r in records)  # what arrived before the fault is kept


def test_server_killed_mid_run(tmp_path: Path) -> None:
    with fake_server_process(tmp_path, ttft=0.01, step=0.01) as (url, proc, _):
        cfg = config(tmp_path, [ArmSpec("base", url)], n=40, conc=2, out_tokens=20, warmup=0)

        def kill_after_three(event: dict[str, Any]) -> None:  # on an event of the run, not after a fixed time
            if event["type"] == "request" and event["done"] >= 3 and proc.poll() is None:
                proc.kill()

        runner = Runner(cfg, progress=kill_after_three)
        result = asyncio.run(runner.run())[0]
    summary = write_point_outputs(result, cfg)["summaries"]["base"]
    records = read_requests(tmp_path / "out" / "base")
    assert len(records) == 40  # every request accounted for
    ok = [r for r in records if r["ok"]]
    bad = [r for r in records if not r["ok"]]
    assert ok and bad
    assert all(("connect failed" in r["error"]) or ("connection" in r["error"]) for r in bad)
    assert summary["completed"] == len(ok) and summary["failed"] == len(bad) and summary["complete"] is False


def test_sigint_keeps_partial_results(tmp_path: Path) -> None:
    with FakeServer(FakeConfig(ttft=0.01, step=0.02)) as srv:
        out = tmp_path / "run"
        cmd = [sys.executable, "-c", "from benchledger.cli import main; main()", "bench", "--base-url", srv.url, "-c", "2",
               "--num-prompts", "200", "--output-tokens", "20", "--out", str(out), "--json", "--warmup", "0"]
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        deadline = time.monotonic() + 20
        while not (out / "base" / "requests.jsonl").exists() or len(read_requests(out / "base")) < 3:
            assert time.monotonic() < deadline, proc.stderr.read() if proc.poll() is not None else "slow start"
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr.decode()
    lines = (out / "base" / "requests.jsonl").read_text().splitlines()
    records = [json.loads(x) for x in lines]  # no torn line
    assert 3 <= len(records) < 200
    assert any(r["error"] and r["error"].startswith("interrupted") for r in records)
    summary = json.loads((out / "base" / "summary.json").read_text())
    assert summary["complete"] is False and summary["stopped_by"] == "interrupted"
    assert summary["completed"] + summary["failed"] == len(records)
    payload = json.loads(stdout)
    assert payload["interrupted"] is True


def test_connections_are_reused_and_loop_lag_reported(tmp_path: Path) -> None:
    with fake_server_process(tmp_path, ttft=0.005, step=0.002) as (url, _, truth_file):
        session = run_session(config(tmp_path, [ArmSpec("base", url)], n=12, conc=3, out_tokens=6))
        truth = wait_truth(truth_file, 12 + 1)
    assert len(read_truth(truth_file)) == 12 + 1  # measured + warmup, and nothing more
    assert len({t["t_accept"] for t in truth.values()}) <= 3  # keep-alive: at most one connection per stream
    overhead = session.outputs[0]["summaries"]["base"]["client_overhead"]
    assert overhead["loop_lag_samples"] > 0 and overhead["loop_lag_ms_median"] >= 0.0


def test_server_closing_idle_keep_alive_connections_loses_nothing(tmp_path: Path) -> None:
    with fake_server_process(tmp_path, ttft=0.003, step=0.001) as (url, _, truth_file):
        cfg = config(tmp_path, [ArmSpec("base", url)], n=10, conc=2, out_tokens=4,
                     extra={"fake_fault": "close_idle"})
        session = run_session(cfg)
        truth = wait_truth(truth_file, 10 + 1)
    s = session.outputs[0]["summaries"]["base"]
    assert s["completed"] == 10 and s["failed"] == 0
    assert len({t["t_accept"] for t in truth.values()}) == len(truth)  # every request needed a new connection


def test_no_secret_reaches_any_output(tmp_path: Path) -> None:
    """An API key from the environment and a token in a launch command appear in no file of the run."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = Path(__file__).resolve().parents[1] / "fakes" / "openai_server.py"
    launch_cmd = (f"env FAKE_UPSTREAM_TOKEN=tok-launch-secret-77 {sys.executable} {server} --port {port} "
                  f"--ready-file {tmp_path / 'ready'}")
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "benchledger", "bench", "--arm", f"base=http://127.0.0.1:{port}",
           "--launch", f"base={launch_cmd}", "--api-key-env", "BL_TEST_KEY", "-c", "1", "--num-prompts", "3",
           "--warmup", "0", "--output-tokens", "4", "--out", str(out), "--json"]
    src = Path(__file__).resolve().parents[2] / "src"  # this tree's code, whatever the venv's install points at
    env = {**os.environ, "BL_TEST_KEY": "sk-client-secret-42",
           "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert done.returncode == 0, done.stderr
    files = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.name == "environment.json" for p in files)
    for path in files:
        text = path.read_text(errors="replace")
        assert "sk-client-secret-42" not in text, path
        assert "tok-launch-secret-77" not in text, path
    assert "sk-client-secret-42" not in done.stdout + done.stderr
    assert "FAKE_UPSTREAM_TOKEN=***" in (out / "environment.json").read_text()


@pytest.mark.parametrize("loop", ["uvloop", "asyncio"])
def test_a_run_on_either_loop_measures_the_same_way_and_says_so(tmp_path: Path, loop: str) -> None:
    """uvloop is the default where it is installed; asyncio (``--event-loop asyncio``) reads through the buffered
    protocol. Both stamp every chunk between the server's write and the response's end, and the summary says
    which loop ran."""
    from benchledger.bench.eventloop import default_event_loop

    if loop == "uvloop":
        pytest.importorskip("uvloop", reason="uvloop is not installed (it does not build on Windows)")
    with fake_server_process(tmp_path, ttft=0.01, step=0.003) as (url, _, truth_file):
        cfg = config(tmp_path, [ArmSpec("base", url)], n=8, conc=4, out_tokens=8)
        assert cfg.event_loop == default_event_loop()
        cfg.event_loop = "uvloop" if loop == "uvloop" else "asyncio"
        session = run_session(cfg)
        truth = read_truth(truth_file)
    s = session.outputs[0]["summaries"]["base"]
    assert s["completed"] == 8 and s["client_overhead"]["event_loop"] == loop
    origin = json.loads((tmp_path / "out" / "base" / "clock.json").read_text())["perf_counter_origin_s"]
    for r in (r for r in read_requests(tmp_path / "out" / "base") if r["phase"] == "measured"):
        t = truth[r["response_id"]]
        assert r["chunk_tokens"] == t["chunk_tokens"]
        # every stamp lies between the server's write of that chunk and the end of the response
        assert all(w <= origin + c <= origin + r["t_end"] for w, c in zip(t["chunk_times"], r["chunk_times"], strict=True))
