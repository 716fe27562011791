"""Alternating pairing over two input sizes and two repeats gives one record whose every arm names the baseline arm
of its own block and size; a group that fails is retried with ``--retries`` and otherwise left failed (exit 1)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from fakes.sweep_server import fake_sweep


def sweep(tmp: Path, **changes: Any) -> Path:
    data = fake_sweep("modes", ttft=0.02, axes={"spec": ["none", "draft-model:2"]},
                      client={"concurrency": [1], "num_prompts": 2})
    for key, value in changes.items():
        section, _, field = key.partition("__")
        if field:
            data[section][field] = value
        else:
            data[section] = value
    path = tmp / "s.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "benchledger", *args], capture_output=True, text=True, timeout=600,
                          check=False)


def front_matter(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])


def test_alternating_blocks_over_sizes_and_repeats_pair_each_arm_with_its_block(tmp_path: Path) -> None:
    path = sweep(tmp_path, pairing={"axis": "spec", "baseline": "none", "mode": "alternating"},
                 client__input_tokens=[16, 32], client__repeats=2)
    done = cli("sweep", "run", str(path), "--out", str(tmp_path / "X"), "--record", "--ledger", str(tmp_path / "L"))
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-2000:]
    assert "audit of the new records: 0 error(s)" in done.stdout
    manifest = json.loads(next((tmp_path / "X").glob("all-*/manifest.json")).read_text())
    assert [s["folder"] for s in manifest["sessions"]] == [
        f"r{r}/{cell}/i{i}-o8" for r in (0, 1) for cell in ("none", "draft-model-2") for i in (16, 32)]
    assert [e["block"] for e in manifest["engines"]] == ["r0/none", "r0/draft-model-2", "r1/none", "r1/draft-model-2"]
    record = front_matter(next((tmp_path / "L" / "benchmarks").glob("sweep-modes-*.md")))
    arms = {a["name"]: a for a in record["arms"]}
    assert len(arms) == 8
    spec = arms["draft-model-2-i32-o8-r1"]
    assert spec["baseline"] == "none-i32-o8-r1" and spec["speculative"]["k"] == 2
    assert spec["workload"]["input_tokens"] == arms["none-i32-o8-r1"]["workload"]["input_tokens"]
    assert "Pairing: alternating" in next((tmp_path / "L" / "benchmarks").glob("sweep-modes-*.md")).read_text()
    not_info = [line for line in done.stdout.splitlines() if line.startswith(("warning ", "error "))]
    assert not_info == [], not_info  # e.g. arms.baseline-differs: each arm and its baseline share their workload


def test_a_failing_group_is_retried_and_otherwise_left_failed(tmp_path: Path) -> None:
    flaky = ("sh -c 'test -f {out}/failed-once-{cell} || {{ touch {out}/failed-once-{cell}; exit 3; }}; "
             "exec {python} {fake} --port {port} --ready-file {out}/ready-{cell}-{port}'")
    no_spec = {"axes": {"spec": ["none"]}}
    path = sweep(tmp_path, matrix=no_spec)
    data = yaml.safe_load(path.read_text())
    data["servers"]["fake"]["launch"] = flaky
    data["servers"]["fake"]["per_value"] = {}
    path.write_text(yaml.safe_dump(data))
    out = tmp_path / "X"
    first = cli("sweep", "run", str(path), "--out", str(out))
    assert first.returncode == 1 and "failed" in first.stderr
    status = json.loads(cli("sweep", "status", str(out), "--json").stdout)
    assert status[0]["state"] == "failed" and "did not become healthy" in status[0]["detail"]
    (out / "failed-once-cell").unlink()  # fail once more, then the retry succeeds
    again = cli("sweep", "run", str(path), "--out", str(out), "--retries", "1")
    assert again.returncode == 0, again.stderr[-3000:]
    events = [json.loads(x)["event"] for x in (out / "events.jsonl").read_text().splitlines()]
    assert events == ["started", "failed", "started", "failed", "started", "committed"]
