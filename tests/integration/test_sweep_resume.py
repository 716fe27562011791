"""A sweep killed by a signal mid-run, then run again, completes only what was missing: each group (and so each
cell) is committed exactly once, a killed group's engines are stopped, and the records are written and audited.

Engines are the fake OpenAI server (``tests/fakes/openai_server.py``) started as real processes by the sweep.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from fakes.sweep_server import fake_sweep


def sweep_file(tmp: Path) -> Path:
    data = fake_sweep("resume-test", ttft=0.25, axes={"variant": ["a", "b"], "spec": ["none", "draft-model:2"]},
                      client={"concurrency": [1, 2], "num_prompts": 4})
    path = tmp / "s.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def cli(*args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "benchledger", *args], capture_output=True, text=True,
                          timeout=300, check=False, **kw)  # type: ignore[call-overload]


def events(out: Path) -> list[dict[str, str]]:
    path = out / "events.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def wait_for(what: str, condition: object, deadline_s: float = 180.0) -> None:
    end = time.monotonic() + deadline_s
    while not condition():  # type: ignore[operator]
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def processes_mentioning(text: str) -> list[int]:
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit() and int(proc.name) != os.getpid():
            try:
                if text in (proc / "cmdline").read_bytes().decode(errors="replace"):
                    found.append(int(proc.name))
            except OSError:
                continue
    return found


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
def test_killed_sweep_resumes_and_runs_each_cell_once(tmp_path: Path, sig: signal.Signals) -> None:
    path, out, ledger = sweep_file(tmp_path), tmp_path / "out", tmp_path / "ledger"
    plan = json.loads(cli("sweep", "plan", str(path), "--json").stdout)
    first, second = (g["label"] + "-" + g["key"] for g in plan["groups"])

    def second_is_measuring() -> bool:
        committed = [e["group"] for e in events(out) if e["event"] == "committed"]
        attempts = list((out / ".attempts" / second).glob("*/r0/*/conc-1/*/requests.jsonl"))
        return committed == [first] and any(p.read_text().strip() for p in attempts)

    proc = subprocess.Popen([sys.executable, "-m", "benchledger", "sweep", "run", str(path), "--out", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_for("the second group to be measuring", second_is_measuring)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert processes_mentioning(str(out)) == [], "an engine outlived the killed sweep"
    status = json.loads(cli("sweep", "status", str(out), "--json").stdout)
    assert [(s["group"], s["state"]) for s in status] == [(first, "done"), (second, "failed")]
    assert "interrupted" in status[1]["detail"] or "signal" in status[1]["detail"]
    first_attempt = json.loads((out / first / "manifest.json").read_text())["attempt"]

    record = ["--record", "--ledger", str(ledger)] if sig == signal.SIGTERM else []
    again = cli("sweep", "run", str(path), "--out", str(out), *record)
    assert again.returncode == 0, again.stderr + again.stdout
    log = events(out)
    for group, starts in ((first, 1), (second, 2)):
        mine = [e["event"] for e in log if e["group"] == group]
        assert mine.count("committed") == 1 and mine.count("started") == starts, mine
    assert json.loads((out / first / "manifest.json").read_text())["attempt"] == first_attempt
    for group in (first, second):
        manifest = json.loads((out / group / "manifest.json").read_text())
        cells = sorted((out / group / "cells").glob("*.json"))
        assert len(cells) == 2
        for cell_file in cells:
            cell = json.loads(cell_file.read_text())
            assert cell["attempt"] == manifest["attempt"]
            assert len(cell["data"]) == 2  # one requests.jsonl per client point
            for rel in cell["data"]:
                assert f"/{cell['cell']['name']}/" in f"/{rel}"
    if not record:
        return
    assert again.stdout.count("record sweep-resume-test-") == 2
    assert "audit of the new records: 0 error(s)" in again.stdout
    rerecord = cli("sweep", "record", str(out), "--ledger", str(ledger))
    assert rerecord.returncode == 0 and rerecord.stdout == again.stdout.split("created ledger", 1)[0] + \
        again.stdout.split("(with the bundled reference records)\n", 1)[1]
    assert len(list((ledger / "benchmarks").glob("sweep-resume-test-*.md"))) == 2
