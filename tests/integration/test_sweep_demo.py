"""The demo sweep end to end on real llama.cpp servers: ``sweep example --demo`` → ``sweep run --record`` gives one
audited record with every cell × point as an arm; the same file through ``--executor slurm`` on the local Slurm
(``scripts/local-slurm.sh start``), cancelled midway with ``scancel`` and run again, gives the same record shape
and runs the group to completion exactly once."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

pytest.importorskip("xllamacpp", reason="needs the engine extra: pip install 'benchledger[engine]'")
pytest.importorskip("gguf", reason="needs the engine extra: pip install 'benchledger[engine]'")

pytestmark = pytest.mark.engine


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "benchledger", *args], capture_output=True, text=True, timeout=600,
                          check=False, cwd=cwd)


def load_record(ledger: Path) -> dict[str, Any]:
    files = list((ledger / "benchmarks").glob("sweep-demo-tiny-llama-*.md"))
    assert len(files) == 1, files
    return yaml.safe_load(files[0].read_text(encoding="utf-8").split("---\n")[1])


def shape(record: dict[str, Any]) -> dict[str, Any]:
    """What must match between two runs of the same sweep: everything but ids, numbers, ports and paths."""
    arms = [{"name": a["name"], "baseline": a.get("baseline"), "workload": a.get("workload"),
             "speculative": {k: v for k, v in (a.get("speculative") or {}).items() if k != "config"},
             "metrics": sorted((r["metric"], r.get("stat", "value")) for r in a["results"]),
             "acceptance": sorted(a.get("acceptance") or {})} for a in record["arms"]]
    subject = {k: v for k, v in record["subject"].items() if k != "engine_flags"}
    return {"subject": subject, "workload": record["workload"], "arms": arms,
            "title": record["title"], "measured_by": record["measured_by"]}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    work = tmp_path_factory.mktemp("sweep-local")
    text = cli("sweep", "example", "--demo").stdout
    (work / "s.yaml").write_text(text, encoding="utf-8")
    done = cli("sweep", "run", "s.yaml", "--out", "X", "--record", "--ledger", "L", cwd=work)
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    assert "audit of the new records: 0 error(s)" in done.stdout
    return work, load_record(work / "L")


def test_local_demo_sweep_gives_one_audited_record_with_every_cell_as_arms(local_run: tuple[Path, Any]) -> None:
    work, record = local_run
    names = [a["name"] for a in record["arms"]]
    assert names == ["none-conc-1", "draft-model-4-conc-1", "none-conc-2", "draft-model-4-conc-2"]
    spec = {a["name"]: a for a in record["arms"]}
    assert spec["draft-model-4-conc-2"]["baseline"] == "none-conc-2"
    assert spec["draft-model-4-conc-1"]["speculative"]["method"] == "draft-model"
    assert spec["draft-model-4-conc-1"]["speculative"]["k"] == 4
    assert "acceptance" in spec["draft-model-4-conc-1"]
    assert "Pairing: concurrent" in (work / "L" / "benchmarks").glob("*.md").__next__().read_text()
    status = json.loads(cli("sweep", "status", "X", "--json", cwd=work).stdout)
    assert [s["state"] for s in status] == ["done"]
    again = cli("sweep", "run", "s.yaml", "--out", "X", cwd=work)  # resume: nothing left to run
    assert again.returncode == 0 and "0 to run" in again.stderr


def slurm_ready() -> str | None:
    """None when the local Slurm's debug partition answers; else why not."""
    if shutil.which("sinfo") is None or shutil.which("sbatch") is None:
        return "Slurm not installed (as root: scripts/local-slurm.sh start)"
    try:
        out = subprocess.run(["sinfo", "-h", "-p", "debug", "-o", "%T"], capture_output=True, text=True, timeout=20,
                             check=False)
    except subprocess.TimeoutExpired:
        return "sinfo did not answer within 20 s"
    if out.returncode != 0 or not any(s in out.stdout for s in ("idle", "mixed", "alloc")):
        return f"no usable 'debug' partition (sinfo: {out.stdout.strip() or out.stderr.strip()})"
    return None


def test_slurm_demo_sweep_cancelled_midway_resumes_with_the_same_record(
        local_run: tuple[Path, Any], tmp_path: Path) -> None:
    why = slurm_ready()
    if why is not None:
        if os.environ.get("BENCHLEDGER_SLURM_REQUIRED") == "1":
            pytest.fail(f"scripts/test.sh started Slurm but it is not usable: {why}")
        pytest.skip(why)
    work, local_record = local_run
    shutil.copy(work / "s.yaml", tmp_path / "s.yaml")
    out = tmp_path / "X"
    args = ["sweep", "run", "s.yaml", "--out", str(out), "--executor", "slurm", "--slurm-partition", "debug",
            "--slurm-time", "10", "--slurm-array-parallelism", "1"]
    proc = subprocess.Popen([sys.executable, "-m", "benchledger", *args], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while not any(p.read_text().strip() for p in out.glob(".attempts/*/*/r0/*/conc-1/*/requests.jsonl")):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the Slurm task never started measuring"
            time.sleep(0.1)
        owner = json.loads(next(out.glob(".attempts/*/*/owner.json")).read_text())
        assert owner["executor"] == "slurm" and owner["job_id"]
        subprocess.run(["scancel", owner["job_id"]], check=True, timeout=30)
        _stdout, stderr = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    assert proc.returncode == 1, stderr[-3000:]
    status = json.loads(cli("sweep", "status", str(out), "--json").stdout)
    assert [s["state"] for s in status] in (["failed"], ["lost"]), status
    resumed = cli(*args, "--record", "--ledger", str(tmp_path / "L"), cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-3000:] + resumed.stdout[-3000:]
    assert "audit of the new records: 0 error(s)" in resumed.stdout
    log = [json.loads(x) for x in (out / "events.jsonl").read_text().splitlines()]
    assert [e["event"] for e in log] == ["started", "failed", "started", "committed"] or \
        [e["event"] for e in log] == ["started", "started", "committed"], log
    manifest = json.loads(next(out.glob("all-*/manifest.json")).read_text())
    assert manifest["owner"]["executor"] == "slurm" and manifest["attempt"] == log[-1]["attempt"]
    assert shape(load_record(tmp_path / "L")) == shape(local_record)
