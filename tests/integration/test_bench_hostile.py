"""The harness against hostile servers (real sockets, the fake server's injected faults): no hang, no lost run,
no silent failure, no wrong number. See docs/reliability.md, section "Harness"."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from tests.fakes.openai_server import FakeConfig, FakeServer

from benchledger.bench.auxhttp import AuxHTTP
from benchledger.bench.load import LoadPoint
from benchledger.bench.outputs import read_requests
from benchledger.bench.run import ArmSpec, RunConfig
from benchledger.bench.rundata import SUMMARY_SCHEMA_VERSION
from benchledger.bench.session import run_session
from benchledger.bench.workload import Prompt, RequestSpec, synthetic_prompts
from benchledger.errors import BenchError

PROMPTS = [Prompt(text=f"prompt {i}", input_tokens=None, input_tokens_source="test") for i in range(16)]


def config(tmp: Path, arms: list[ArmSpec], *, n: int = 4, extra: dict[str, Any] | None = None,
           endpoint: str = "completions", aux: float = 0.5, warmup: int = 0, conc: int = 2) -> RunConfig:
    return RunConfig(arms=arms, request=RequestSpec(output_tokens=8, extra=extra or {}, endpoint=endpoint),  # type: ignore[arg-type]
                     points=[LoadPoint(concurrency=conc)], prompts=PROMPTS, num_prompts=n, out=tmp / "out",
                     warmup=warmup, timeout=10.0, round_size=conc, aux_deadline=aux)


@pytest.mark.parametrize(("fault", "reason"), [
    ("delta_oops", "choice delta is not a JSON object"),
    ("choices_int", "choices is not a list"),
    ("draft_n_abc", "timings.draft_n is not an integer"),
    ("negative_usage", "implausible usage.completion_tokens: -1000000"),
    ("no_choices", "no generated content: no chunk carried choices"),
    ("json_body", "one JSON body, not an SSE stream"),
    ("html_body", "answered HTML, not an SSE stream"),
])
def test_one_bad_response_fails_that_request_with_a_reason(tmp_path: Path, fault: str, reason: str) -> None:
    with FakeServer(FakeConfig(ttft=0.002, step=0.001)) as srv:
        cfg = config(tmp_path, [ArmSpec("base", srv.url), ArmSpec("spec", srv.url, spec_method="mtp", spec_k=2)],
                     n=4, extra={"fake_fault": fault})
        session = run_session(cfg)
    for arm in ("base", "spec"):
        records = read_requests(tmp_path / "out" / arm)
        assert len(records) == 4
        assert all(not r["ok"] and reason in r["error"] for r in records), [r["error"] for r in records]
        summary = json.loads((tmp_path / "out" / arm / "summary.json").read_text())
        assert summary["completed"] == 0 and summary["failed"] == 4 and summary["schema_version"] == SUMMARY_SCHEMA_VERSION
    assert (tmp_path / "out" / "comparison.json").exists()
    assert session.problems()[0].startswith("conc-2 base: no completed request")


def test_reasoning_counts_for_ttft_and_ttfot_marks_the_first_answer(tmp_path: Path) -> None:
    with FakeServer(FakeConfig(ttft=0.002, step=0.004, fault="reasoning", reasoning_tokens=3)) as srv:
        session = run_session(config(tmp_path, [ArmSpec("base", srv.url)], n=4, endpoint="chat"))
    records = [r for r in read_requests(tmp_path / "out" / "base") if r["phase"] == "measured"]
    assert all(r["ok"] and r["reasoning_chunks"] == 3 for r in records)
    for r in records:  # the first reasoning chunk starts TTFT; the fourth chunk is the first answer
        assert r["t_first_answer"] == r["chunk_times"][3]
    s = session.outputs[0]["summaries"]["base"]
    assert s["median_ttfot_ms"] > s["median_ttft_ms"] and s["ttfot_requests"] == 4


async def _prompts(url: str, want: int = 64, deadline: float = 0.5) -> list[Prompt]:
    return await synthetic_prompts(3, want, url, None, 0, AuxHTTP(deadline=deadline))


@pytest.mark.parametrize("mode", ["empty", "html", "strings", "hang"])
def test_an_unusable_tokenizer_falls_back_with_a_stated_note(mode: str) -> None:
    with FakeServer(FakeConfig(tokenize=mode)) as srv:
        prompts = asyncio.run(_prompts(srv.url))
        calls = srv.app.tokenize_calls
    assert calls <= 2  # the probe (two request shapes) and nothing more: never a loop
    assert all(p.input_tokens is None and p.input_tokens_source == "approx-4-chars-per-token" for p in prompts)
    assert "server /tokenize unusable" in prompts[0].note


@pytest.mark.parametrize("mode", ["constant", "truncate"])
def test_a_tokenizer_that_stops_growing_is_a_clear_error(mode: str) -> None:
    with FakeServer(FakeConfig(tokenize=mode)) as srv:
        with pytest.raises(BenchError, match="stopped growing"):
            asyncio.run(_prompts(srv.url, want=64))
        assert srv.app.tokenize_calls <= 4


def test_a_working_tokenizer_gives_exact_lengths() -> None:
    with FakeServer(FakeConfig(tokenize="ok")) as srv:
        prompts = asyncio.run(_prompts(srv.url, want=20))
    assert [p.input_tokens for p in prompts] == [20, 20, 20]
    assert all(len(p.text.split()) == 20 and p.input_tokens_source == "server-tokenize" for p in prompts)


def test_prompt_building_obeys_its_overall_deadline(tmp_path: Path) -> None:
    """Each /tokenize answer is quick enough for its own deadline, but 2,000 exact prompts need ~6,000 of them:
    the build as a whole stops at the prompt deadline with a clear error, nothing measured."""
    with FakeServer(FakeConfig(tokenize="slow")) as srv:
        cfg = config(tmp_path, [ArmSpec("base", srv.url)], aux=5.0)
        cfg.prompts, cfg.prompt_deadline = [], 1.0
        cfg.prompt_builder = lambda url, aux: synthetic_prompts(2000, 16, url, None, 0, aux)
        with pytest.raises(BenchError, match="prompt deadline"):
            run_session(cfg)
        calls = srv.app.tokenize_calls
    assert 0 < calls < 2000  # stopped early: not even one call per prompt was made
    assert not (tmp_path / "out" / "base" / "requests.jsonl").exists()


def test_a_prompt_file_is_read_only_as_far_as_the_run_needs_and_obeys_the_deadline(tmp_path: Path) -> None:
    import time

    from benchledger.bench.workload import load_prompt_file

    jsonl = tmp_path / "p.jsonl"
    jsonl.write_text("".join(json.dumps({"prompt": f"p{i}"}) + "\n" for i in range(10)) + "{not json\n")
    assert [p.text for p in load_prompt_file(jsonl, 10)] == [f"p{i}" for i in range(10)]  # line 11 never read
    sharegpt = tmp_path / "p.json"
    items = [{"conversations": [{"from": "human", "value": f"q{i}"}]} for i in range(5)]
    sharegpt.write_text(json.dumps(items)[:-1] + ", {broken")
    assert [p.text for p in load_prompt_file(sharegpt, 5)] == [f"q{i}" for i in range(5)]
    with pytest.raises(BenchError, match="invalid JSON"):
        load_prompt_file(sharegpt)
    for path in (jsonl, sharegpt):
        with pytest.raises(BenchError, match="prompt deadline"):
            load_prompt_file(path, deadline=time.monotonic() - 1.0)  # a deadline already passed


@pytest.mark.parametrize("mode", ["trickle", "hang"])
def test_a_trickling_or_silent_metrics_endpoint_is_cut_at_the_deadline(tmp_path: Path, mode: str) -> None:
    deadline = 0.5
    with FakeServer(FakeConfig(ttft=0.002, step=0.001, k=2, accept_pattern=[1], metrics=mode)) as srv:
        session = run_session(config(tmp_path, [ArmSpec("spec", srv.url, spec_method="mtp", spec_k=2)],
                                     aux=deadline))
        asked, closed = srv.app.asked_at["/metrics"], srv.app.closed_after.get("/metrics", [])
    assert len(asked) >= 2 and len(closed) == len(asked)  # every attempt's connection was given up
    # each scrape is cut at its total deadline (the old per-read timeout restarted with every byte, forever)
    assert max(c - a for a, c in zip(sorted(asked), sorted(closed), strict=True)) < 10 * deadline
    s = session.outputs[0]["summaries"]["spec"]
    assert s["completed"] == 4 and s["spec_decode_acceptance_rate"] is None
    assert any(n.startswith("metrics not scraped") for n in s["notes"])


@pytest.mark.parametrize("mode", ["reset", "restart"])
def test_counter_reset_invalidates_the_window(tmp_path: Path, mode: str) -> None:
    with FakeServer(FakeConfig(ttft=0.002, step=0.001, k=2, accept_pattern=[1], metrics=mode)) as srv:
        # warmup moves the counters before the first scrape, so a restart to zero goes backwards
        session = run_session(config(tmp_path, [ArmSpec("spec", srv.url, spec_method="mtp", spec_k=2)], warmup=2))
    s = session.outputs[0]["summaries"]["spec"]
    assert s["spec_decode_counter_window"] == "reset"
    assert s["spec_decode_acceptance_rate"] is None and s["spec_decode_acceptance_length"] is None
    assert any(w.startswith("counter reset:") for w in s["warnings"])


def test_a_non_prometheus_metrics_body_is_a_note(tmp_path: Path) -> None:
    with FakeServer(FakeConfig(ttft=0.002, step=0.001, k=2, accept_pattern=[1], metrics="garbage")) as srv:
        session = run_session(config(tmp_path, [ArmSpec("spec", srv.url, spec_method="mtp", spec_k=2)]))
    s = session.outputs[0]["summaries"]["spec"]
    assert s["completed"] == 4 and s["spec_decode_acceptance_rate"] is None
    assert any(n.startswith("metrics unusable: not Prometheus text exposition") for n in s["notes"])


def test_a_harness_fault_mid_point_still_writes_every_summary(tmp_path: Path) -> None:
    (tmp_path / "out" / "base" / "metrics-after.prom").mkdir(parents=True)  # the scrape cannot be saved there
    with FakeServer(FakeConfig(ttft=0.002, step=0.001)) as srv:
        session = run_session(config(tmp_path, [ArmSpec("base", srv.url), ArmSpec("spec", srv.url)]))
    for arm in ("base", "spec"):
        summary = json.loads((tmp_path / "out" / arm / "summary.json").read_text())
        assert summary["completed"] == 4 and summary["stopped_by"] == "error" and summary["complete"] is False
        assert any(w.startswith("run error: the point ended early on a harness error (IsADirectoryError")
                   for w in summary["warnings"])
    assert (tmp_path / "out" / "comparison.json").exists()
    assert len(session.problems()) == 2
