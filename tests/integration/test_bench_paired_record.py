"""The speedup ``benchledger bench`` prints (paired rounds, 95 % CI) is the one its record keeps
(``Arm.paired_speedups``) and the record page shows, next to the labelled whole-window ratio."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.fakes.openai_server import FakeConfig, FakeServer

from benchledger.ledger import Ledger
from benchledger.schema import Benchmark
from benchledger.site import build_site

IDS = ["--record-model", "gemma-3-27b", "--record-engine", "llama-cpp", "--record-accelerator", "nvidia-b200"]


def test_the_printed_paired_speedup_and_its_ci_reach_the_record_and_its_page(tmp_path: Path) -> None:
    ledger = tmp_path / "ledger"
    init = subprocess.run([sys.executable, "-m", "benchledger", "init", str(ledger), "--with-reference"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert init.returncode == 0, init.stderr
    with FakeServer(FakeConfig()) as base, FakeServer(FakeConfig()) as spec:
        done = subprocess.run(
            [sys.executable, "-m", "benchledger", "bench", "--warmup", "0", "--output-tokens", "4",
             "--arm", f"base={base.url}", "--arm", f"spec={spec.url}", "--spec", "spec=mtp:3", "-c", "1",
             "--num-prompts", "6", "--record", "--ledger", str(ledger), *IDS, "--record-id", "paired",
             "--out", str(tmp_path / "out"), "--json"],
            capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)["points"][0]["comparison"]["arms"]["spec"]
    record = Ledger.load(ledger).get("paired")
    assert isinstance(record, Benchmark)
    base_arm, spec_arm = record.arms
    assert base_arm.paired_speedups == []
    kept = {p.metric: p for p in spec_arm.paired_speedups}
    thr = printed["output_throughput_speedup"]
    assert printed["paired_rounds"] >= 3 and thr["ci95"] is not None
    assert kept["output_throughput"].estimate == thr["estimate"]
    assert kept["output_throughput"].ci95 == thr["ci95"]
    assert kept["output_throughput"].paired_rounds == printed["paired_rounds"]
    page = (build_site(ledger, tmp_path / "site").out / "benchmarks" / "paired.html").read_text(encoding="utf-8")
    assert "paired speedup on output_throughput · 95 % CI" in page
    assert f"{thr['estimate']:.3f}× [{thr['ci95'][0]:.3f}, {thr['ci95'][1]:.3f}]" in page
    assert "speedup on output_throughput · whole window" in page
