"""Client overhead: how far the harness's measured TTFT/TPOT are from the truth, and its CPU cost.

The fake OpenAI server (tests/fakes) runs in its own process pinned to one core and logs when it read each
request and wrote each chunk (``time.perf_counter``, system-wide monotonic on Linux). The harness runs here,
pinned to another core. For each concurrency level: error of the median TTFT and TPOT (client − truth) and the
client's CPU-seconds per 1,000 output tokens. Budget (issue 3): median errors < 1 ms up to 256 streams.

    python benchmarks/client_overhead.py [--levels 1,16,64,256,512] [--tokens 32]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.procs import fake_server_process, read_truth  # noqa: E402

from benchledger.bench.load import LoadPoint  # noqa: E402
from benchledger.bench.outputs import read_requests  # noqa: E402
from benchledger.bench.run import ArmSpec, RunConfig, Runner  # noqa: E402
from benchledger.bench.workload import Prompt, RequestSpec  # noqa: E402
from benchledger.metrics import tpot, ttft  # noqa: E402

PIN = False


def measure(level: int, tokens: int, ttft_s: float, step_s: float, tmp: Path) -> dict[str, float]:
    n = max(2 * level, 32)
    prompts = [Prompt(text=f"p{i}", input_tokens=None, input_tokens_source="bench") for i in range(n)]
    with fake_server_process(tmp, name=f"c{level}", ttft=ttft_s, step=step_s) as (url, proc, truth_file):
        if PIN and hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
            os.sched_setaffinity(proc.pid, {1})
        cfg = RunConfig(arms=[ArmSpec("base", url)], request=RequestSpec(output_tokens=tokens),
                        points=[LoadPoint(concurrency=level)], prompts=prompts, num_prompts=n,
                        out=tmp / f"out-{level}", warmup=0, timeout=120.0, round_size=n)
        cpu0 = time.process_time()
        asyncio.run(Runner(cfg).run())
        cpu = time.process_time() - cpu0
        time.sleep(0.2)
        truth = read_truth(truth_file)
    recs = [r for r in read_requests(tmp / f"out-{level}" / "base") if r["ok"]]
    c_ttft, t_ttft, c_tpot, t_tpot = [], [], [], []
    for r in recs:
        t = truth[r["response_id"]]
        c_ttft.append(ttft(r) or 0.0)
        t_ttft.append(t["chunk_times"][0] - t["t_read"])
        c_tpot.append(tpot(r) or 0.0)
        t_tpot.append((t["chunk_times"][-1] - t["chunk_times"][0]) / (sum(t["chunk_tokens"]) - t["chunk_tokens"][0]))
    out_tokens = sum(r["output_tokens"] for r in recs)
    return {
        "level": level,
        "requests": len(recs),
        "ttft_median_err_ms": (statistics.median(c_ttft) - statistics.median(t_ttft)) * 1000,
        "tpot_median_err_ms": (statistics.median(c_tpot) - statistics.median(t_tpot)) * 1000,
        "ttft_p99_abs_err_ms": sorted(abs(a - b) for a, b in zip(c_ttft, t_ttft, strict=True))[
            int(0.99 * (len(recs) - 1))] * 1000,
        "cpu_s_per_1k_tokens": cpu / out_tokens * 1000 if out_tokens else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", default="1,16,64,256,512")
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--ttft", type=float, default=0.05)
    parser.add_argument("--step", type=float, default=0.02)
    parser.add_argument("--pin", action="store_true", help="pin client to CPU 0 and server to CPU 1")
    args = parser.parse_args()
    global PIN
    PIN = args.pin
    if PIN and hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
        os.sched_setaffinity(0, {0})
    tmp = Path(tempfile.mkdtemp(prefix="client-overhead-"))
    try:
        print(f"{'streams':>8} {'reqs':>5} {'TTFT med err ms':>16} {'TPOT med err ms':>16} "
              f"{'TTFT p99 |err| ms':>18} {'CPU s / 1k tok':>15}")
        for level in (int(x) for x in args.levels.split(",")):
            m = measure(level, args.tokens, args.ttft, args.step, tmp)
            print(f"{m['level']:>8} {m['requests']:>5} {m['ttft_median_err_ms']:>16.3f} "
                  f"{m['tpot_median_err_ms']:>16.3f} {m['ttft_p99_abs_err_ms']:>18.3f} "
                  f"{m['cpu_s_per_1k_tokens']:>15.4f}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
