"""``benchledger bench`` as a user runs it (a subprocess, real sockets, the fake server's faults): honest exit
status, a test request first, signals in every phase, safe recording, no secret written."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.fakes.openai_server import FakeConfig, FakeServer

from benchledger.audit import run_audit
from benchledger.ledger import Ledger

SERVER = Path(__file__).resolve().parents[1] / "fakes" / "openai_server.py"
IDS = ["--record-model", "gemma-3-27b", "--record-engine", "llama-cpp", "--record-accelerator", "nvidia-b200"]


def bench(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "benchledger", "bench", "--warmup", "0", "--output-tokens", "4", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False,
                          env={**os.environ, **(env or {})})


def start(*args: str) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "benchledger", "bench", "--warmup", "0", "--output-tokens", "4", *args]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def strict_json(text: str) -> dict[str, object]:
    def refuse(name: str) -> object:
        raise ValueError(f"non-JSON constant {name}")

    data: dict[str, object] = json.loads(text, parse_constant=refuse)
    return data


@pytest.fixture(scope="module")
def reference_ledger(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ref") / "ledger"
    done = subprocess.run([sys.executable, "-m", "benchledger", "init", str(root), "--with-reference"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return root


@pytest.fixture
def ledger(reference_ledger: Path, tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "ledger"
    shutil.copytree(reference_ledger, root)
    yield root


def test_every_request_failing_exits_3_with_the_reasons_and_json_has_no_nan(tmp_path: Path) -> None:
    with FakeServer(FakeConfig(fault="http_500")) as srv:
        done = bench("--base-url", srv.url, "--num-prompts", "3", "--out", str(tmp_path / "o"), "--json",
                     "--no-test-request")
    assert done.returncode == 3, done.stderr
    payload = strict_json(done.stdout)
    assert payload["problems"] == ["conc-1 base: no completed request (top errors: 3× HTTP 500)"]
    human = bench("--base-url", "http://127.0.0.1:9", "--num-prompts", "2", "--out", str(tmp_path / "h"),
                  "--no-test-request")
    assert human.returncode == 3
    assert "no completed request (top errors: 2× connect failed)" in human.stdout
    assert "nan" not in human.stdout.lower()


def test_the_test_request_stops_with_the_servers_reason(tmp_path: Path) -> None:
    with FakeServer(FakeConfig(fault="http_500")) as srv:
        done = bench("--base-url", srv.url, "--num-prompts", "3", "--out", str(tmp_path / "o"))
        sent = srv.app.seq
    assert done.returncode == 2
    assert "test request to arm 'base'" in done.stderr and "HTTP 500: " in done.stderr and "fake 500" in done.stderr
    assert sent == 0 and not (tmp_path / "o" / "base" / "requests.jsonl").exists()  # nothing measured


def test_error_rate_above_the_limit_fails(tmp_path: Path) -> None:
    with FakeServer(FakeConfig(fault="echo_key_sse")) as bad, FakeServer(FakeConfig()) as good:
        done = bench("--arm", f"base={good.url}", "--arm", f"other={bad.url}", "--num-prompts", "3",
                     "--out", str(tmp_path / "o"), "--json", "--no-test-request", "--max-error-rate", "0.5")
    assert done.returncode == 3
    problems = strict_json(done.stdout)["problems"]
    assert problems == ["conc-1 other: no completed request (top errors: 3× server error in stream)"]


def test_an_empty_tokenizer_answer_falls_back_and_the_run_finishes(tmp_path: Path) -> None:
    with FakeServer(FakeConfig(tokenize="empty", ttft=0.001, step=0.001)) as srv:
        start_t = time.perf_counter()
        done = bench("--base-url", srv.url, "--num-prompts", "3", "--out", str(tmp_path / "o"), "--json")
        elapsed = time.perf_counter() - start_t
        calls = srv.app.tokenize_calls
    assert done.returncode == 0, done.stderr
    assert calls <= 2  # the probe only: no loop
    summary = json.loads((tmp_path / "o" / "base" / "summary.json").read_text())
    assert summary["prompt_source"] == "approx-4-chars-per-token"
    assert any("server /tokenize unusable" in n for n in summary["notes"])
    print(f"empty-tokenizer bench wall time: {elapsed:.2f} s")


def _sigint_when(proc: subprocess.Popen[str], ready: object, what: str, sig: int = signal.SIGINT) -> float:
    deadline = time.monotonic() + 60
    while not ready():  # type: ignore[operator]
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, f"never reached: {what}"
        time.sleep(0.02)
    t_signal = time.perf_counter()
    proc.send_signal(sig)
    return t_signal


def test_sigint_cuts_a_trickling_metrics_scrape(tmp_path: Path) -> None:
    with FakeServer(FakeConfig(metrics="trickle", ttft=0.001, step=0.001)) as srv:
        proc = start("--base-url", srv.url, "--num-prompts", "3", "--out", str(tmp_path / "o"), "--json",
                     "--aux-timeout", "600")
        t_signal = _sigint_when(proc, lambda: srv.app.scrapes >= 1, "the first scrape")
        _, stderr = proc.communicate(timeout=60)
        exited = time.perf_counter() - t_signal
        closed = srv.app.closed_after.get("/metrics", [])
    assert proc.returncode == 130, stderr
    assert closed and closed[0] - t_signal < 2.0  # the scrape's connection dropped right after the signal
    summary = json.loads((tmp_path / "o" / "base" / "summary.json").read_text())
    assert summary["complete"] is False and summary["stopped_by"] == "interrupted"
    print(f"SIGINT → trickling scrape closed after {closed[0] - t_signal:.3f} s, process exited after {exited:.3f} s")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_prompt_building_exits_130(tmp_path: Path, sig: signal.Signals) -> None:
    with FakeServer(FakeConfig(tokenize="hang")) as srv:
        proc = start("--base-url", srv.url, "--num-prompts", "3", "--out", str(tmp_path / "o"),
                     "--aux-timeout", "600")
        t_signal = _sigint_when(proc, lambda: srv.app.tokenize_calls >= 1, "the tokenizer probe", sig)
        _, stderr = proc.communicate(timeout=60)
        closed = srv.app.closed_after.get("/tokenize", [])
    assert proc.returncode == 130, stderr
    assert "interrupted before the run started" in stderr
    assert closed and closed[0] - t_signal < 2.0
    print(f"{sig.name} → hanging /tokenize closed after {closed[0] - t_signal:.3f} s")


@pytest.mark.parametrize(("args", "why"), [
    (["--record-id", "../../victim"], "expected a slug"),
    (["--record-id", "a/b"], "expected a slug"),
    (["--record-model", "no-such-model"], "no such record"),
    (["--record-engine", "gemma-3-27b"], "is of kind model, not engine"),
])
def test_bad_record_ids_are_refused_before_the_run(ledger: Path, tmp_path: Path, args: list[str],
                                                   why: str) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious")
    with FakeServer(FakeConfig()) as srv:
        ids = dict(zip(IDS[::2], IDS[1::2], strict=True))
        ids.update(dict(zip(args[::2], args[1::2], strict=True)))
        flat = [x for kv in ids.items() for x in kv]
        done = bench("--base-url", srv.url, "--num-prompts", "2", "--record", "--ledger", str(ledger), *flat)
        sent = srv.app.seq
    assert done.returncode == 2 and why in done.stderr, done.stderr
    assert sent == 0
    assert (victim / "keep.txt").read_text() == "precious"


def test_an_existing_record_id_is_refused_without_overwrite(ledger: Path, tmp_path: Path) -> None:
    with FakeServer(FakeConfig()) as srv:
        common = ["--base-url", srv.url, "--num-prompts", "2", "--record", "--ledger", str(ledger), *IDS,
                  "--record-id", "my-run"]
        first = bench(*common, "--out", str(tmp_path / "a"))
        assert first.returncode == 0, first.stderr
        record = ledger / "benchmarks" / "my-run.md"
        before = record.read_bytes()
        again = bench(*common, "--out", str(tmp_path / "b"))
        assert again.returncode == 2 and "exists" in again.stderr
        assert record.read_bytes() == before
        over = bench(*common, "--out", str(tmp_path / "c"), "--overwrite")
        assert over.returncode == 0, over.stderr
    kept = [p.name for p in (ledger / "runs").iterdir() if p.name.startswith("my-run.replaced-")]
    assert len(kept) == 1  # the old run folder is moved aside, never deleted
    assert not [p for p in (ledger / "runs").iterdir() if p.name.endswith(".tmp")]


def test_an_interrupted_record_run_is_recorded_only_as_incomplete(ledger: Path, tmp_path: Path) -> None:
    with FakeServer(FakeConfig(ttft=0.01, step=0.02)) as srv:
        for flag, rid in (([], "cut-1"), (["--record-incomplete"], "cut-2")):
            proc = start("--base-url", srv.url, "-c", "2", "--num-prompts", "200", "--record", "--ledger",
                         str(ledger), *IDS, "--record-id", rid, "--out", str(tmp_path / rid), *flag)
            out = tmp_path / rid / "base"
            _sigint_when(proc, lambda out=out: (out / "requests.jsonl").exists()  # type: ignore[misc]
                         and len((out / "requests.jsonl").read_text().splitlines()) >= 3, "3 requests")
            _, stderr = proc.communicate(timeout=60)
            assert proc.returncode == 130, stderr
    assert not (ledger / "benchmarks" / "cut-1.md").exists()
    loaded = Ledger.load(ledger)
    assert getattr(loaded.get("cut-2"), "complete", None) is False
    flagged = [f for f in run_audit(loaded).findings if f.code == "measured.incomplete"]
    assert [f.record for f in flagged] == ["cut-2"]


def test_no_secret_reaches_the_run_or_the_ledger(ledger: Path, tmp_path: Path) -> None:
    """API key echoed by the server (401 body, SSE error), launch flags --api-key/-k, an argv-printing log."""
    import socket

    key, launch_key, short_key = "sk-client-secret-4242", "launch-secret-7777", "short-secret-9999"
    hf_token, auth = "hf-token-secret-5555", "auth-secret-3333"
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    launch = (f"{sys.executable} {SERVER} --port {port} --ready-file {tmp_path / 'ready'} "
              f"--api-key {launch_key} -k {short_key} --hf-token {hf_token} --auth={auth}")
    with FakeServer(FakeConfig(fault="echo_key_401")) as e401, FakeServer(FakeConfig(fault="echo_key_sse")) as sse:
        done = bench("--arm", f"base=http://127.0.0.1:{port}", "--launch", f"base={launch}",
                     "--arm", f"a401={e401.url}", "--arm", f"asse={sse.url}", "--api-key-env", "BL_TEST_KEY",
                     "--num-prompts", "2", "--no-test-request", "--max-error-rate", "1", "--record", "--ledger",
                     str(ledger), *IDS, "--record-id", "secret-run", "--out", str(tmp_path / "o"), "--json",
                     env={"BL_TEST_KEY": key})
    assert done.returncode == 3, done.stderr  # the echoing arms completed nothing
    errors = [json.loads(x)["error"] for x in (tmp_path / "o" / "a401" / "requests.jsonl").read_text().splitlines()]
    assert errors and all(e.startswith("HTTP 401") for e in errors)
    files = [p for root in (tmp_path / "o", ledger) for p in root.rglob("*") if p.is_file()]
    assert any(p.name == "engine-base.log" for p in files) and (ledger / "benchmarks" / "secret-run.md").exists()
    for path in files:
        text = path.read_text(errors="replace")
        for secret in (key, launch_key, short_key, hf_token, auth):
            assert secret not in text, (path, secret)
    for secret in (key, launch_key, short_key, hf_token, auth):
        assert secret not in done.stdout + done.stderr
    assert "argv:" in (tmp_path / "o" / "engine-base.log").read_text()


def test_sigint_during_warmup_writes_incomplete_summaries(tmp_path: Path) -> None:
    out = tmp_path / "o" / "base" / "requests.jsonl"
    with FakeServer(FakeConfig(ttft=0.01, step=0.02)) as srv:
        proc = start("--base-url", srv.url, "--num-prompts", "5", "--out", str(tmp_path / "o"), "--json",
                     "--warmup", "40")  # the last --warmup wins
        _sigint_when(proc, lambda: out.exists() and len(out.read_text().splitlines()) >= 1, "a warmup request")
        stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    records = [json.loads(x) for x in out.read_text().splitlines()]
    assert records and all(r["phase"] == "warmup" for r in records)
    summary = json.loads((tmp_path / "o" / "base" / "summary.json").read_text())
    assert summary["complete"] is False and summary["stopped_by"] == "interrupted" and summary["completed"] == 0
    assert strict_json(stdout)["interrupted"] is True


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_a_second_signal_while_the_engines_stop_kills_them_at_once(tmp_path: Path) -> None:
    """An engine that ignores SIGTERM holds the exit for its whole grace period (STOP_GRACE_S); a Ctrl-C while
    the engines are being stopped SIGKILLs them at once, and the run still exits 130 with its summaries."""
    from benchledger.bench.launch import STOP_GRACE_S

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    engine = (f"bash -c 'trap \"\" TERM; exec {sys.executable} {SERVER} --port {port} "
              f"--ready-file {tmp_path / 'ready'} --ttft 0.01 --step 0.02'")
    out = tmp_path / "o"
    proc = start("--arm", f"base=http://127.0.0.1:{port}", "--launch", f"base={engine}", "--num-prompts", "100000",
                 "--out", str(out), "--json", "--no-test-request")
    requests = out / "base" / "requests.jsonl"
    _sigint_when(proc, lambda: requests.exists() and requests.read_text().count("\n") >= 2, "measured requests")
    summary = out / "base" / "summary.json"
    deadline = time.monotonic() + 60
    while not summary.exists():  # the outputs are written, then the engines are stopped
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "the summary was never written"
        time.sleep(0.02)
    t0 = time.monotonic()
    while proc.poll() is None and _listening(port):  # Ctrl-C again while it waits for the engine, till it is gone
        proc.send_signal(signal.SIGINT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(0.1)
        assert time.monotonic() - t0 < 60
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(60)
    waited = time.monotonic() - t0
    stdout, stderr = proc.communicate(timeout=10)
    assert proc.returncode == 130, stderr
    assert strict_json(stdout)["interrupted"] is True
    assert waited < STOP_GRACE_S / 2, f"the exit waited {waited:.1f} s for an engine that ignores SIGTERM"
    assert json.loads(summary.read_text())["complete"] is False


def test_a_second_run_into_the_same_out_folder_is_refused_before_it_starts(tmp_path: Path) -> None:
    out = tmp_path / "o"
    with FakeServer(FakeConfig(ttft=0.001, step=0.001)) as srv:
        first = bench("--base-url", srv.url, "--num-prompts", "3", "--out", str(out), "--json")
        assert first.returncode == 0, first.stderr
        lines = (out / "base" / "requests.jsonl").read_text()
        again = bench("--base-url", srv.url, "--num-prompts", "3", "--out", str(out), "--json")
    assert again.returncode == 2 and "already holds another run's files" in again.stderr
    assert (out / "base" / "requests.jsonl").read_text() == lines  # the first run's raw data is as it was
