"""Ledger scale benchmark: the cached index against a cold build, for N synthetic benchmark records.

Every N's ledger is generated first; then ``--repeat`` rounds, each of every N in turn (``measure``), of: cold
``benchledger audit`` (loads, audits and indexes every file, writes the cache; the cache folder removed first), warm
``benchledger query "select count(*) from arms"`` (nothing changed), the same query after one benchmark file changed
(a different file each round); then, per N, the query after 100 changed, and ``query --no-cache`` (a fresh in-memory
build). Each is a real CLI process: wall seconds and the CPU seconds it used; medians, with every sample kept in the
JSON (``samples``): one sample of a CLI process on a shared 2-core machine moves by ±10 %, as much as the margins
the targets leave, and this host's speed drifts within a run (rounds, not all cold samples first, so that a ratio's
two sides, the growth ratio's too, are measured minutes apart at most: ``*_pairs``, each round's). Printed as JSON
with the load average before and after, the ratios (warm / cold, changed / cold) and the growth ratio for 2×
records.

Targets (issue 15, 2-core machine): warm query at 10,000 ≤ 0.5 s wall and ≥ 15× faster than cold; one changed
record ≤ 10 % of cold; cold audit + index ≤ 6 s; 2× records ≤ 2.1× time. ``--site`` also times ``site build``
(issue 5: ≤ 30 s at 10,000).
``--bundled`` also times a copy of the shipped ledger (cold, warm, one benchmark file changed). Each time comes
with the 1-minute load average when it started (``load``).

Bytecode: an installed benchledger has its modules compiled (pip writes the ``.pyc`` files), but a sandbox that
sets ``PYTHONDONTWRITEBYTECODE`` makes every CLI process compile benchledger's own modules again (~0.2-0.3 s).
By default the child processes run as an install does: the package is compiled once (``compileall``, as pip
does) and that variable is dropped from their environment, so they write and reuse bytecode. ``--no-bytecode``
runs them with ``PYTHONDONTWRITEBYTECODE=1`` on a copy of the package without bytecode (the sandbox's setting:
a package with ``__pycache__`` would still be read from it); ``--both-bytecode`` measures each size
both ways (``results`` and ``results_no_bytecode``). The JSON's ``bytecode`` says which setting this process
found and which its children ran under.
``--baseline REV`` also times, side by side with each cold sample (interleaved, same ledger, same installed
dependencies), ``benchledger query`` as the code at git revision ``REV`` ran it: the issue's "today 8.4 s" was
measured on ``BASELINE_REV``, the commit issue 15 was filed against, where every query loaded every file, ran the
whole audit and built a fresh index. Its ``src/`` is taken with ``git archive`` into a temporary folder and
imported through ``PYTHONPATH`` (compiled as the current package is). ``cold_over_baseline`` is then what the
absolute targets mean on a host of another speed: cold ≤ 6 s where that code took 8.4 s is a ratio ≤ 0.714.
Usage: python benchmarks/ledger_scale.py [--sizes 1000 10000 20000] [--repeat 3] [--site] [--bundled]
       [--no-bytecode | --both-bytecode] [--baseline [REV]]
"""

from __future__ import annotations

import argparse
import atexit
import compileall
import copy
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import benchledger
from benchledger.catalog.scan import RACY_NS
from benchledger.ledger import dump_record
from benchledger.ledger.location import CACHE_FOLDER
from benchledger.ledger.paths import bundled_ledger_dir
from benchledger.schema import RECORD_ADAPTER

from ledger_builder import benchmark, reference_records, source

QUERY = "select count(*) from arms"
BASELINE_REV = "05b43dabbb8e63d6992f8d930edec4cbe545a86a"
"""The commit issue 15 was filed against (the parent of bea086c, its first change): no cache, no workers."""
TARGET_COLD_RATIO = round(6.0 / 8.4, 3)
"""Issue 15's cold target (≤ 6 s) over what it measured on ``BASELINE_REV`` (8.4 s)."""
REPO = Path(__file__).resolve().parents[1]
NO_BYTECODE = "PYTHONDONTWRITEBYTECODE"
_CHILD_ENV: dict[str, str] = dict(os.environ)
"""The environment of every ``benchledger`` child process (``child_environment`` sets it)."""
_BASELINE_ENV: dict[str, str] | None = None
"""The environment of the baseline's child processes (``baseline_environment`` sets it; None: no baseline)."""


def child_environment(bytecode: bool) -> dict[str, Any]:
    """Set the children's environment: with ``bytecode``, benchledger's package compiled here once (what pip does
    on install), ``PYTHONDONTWRITEBYTECODE`` dropped and one warm-up run; else that variable set to 1 and the
    package imported from a copy without ``__pycache__`` (its dependencies keep theirs, as in the sandbox). What
    it did, for the JSON."""
    global _CHILD_ENV
    env = dict(os.environ)
    package = Path(benchledger.__file__).resolve().parent
    compiled = None
    if bytecode:
        env.pop(NO_BYTECODE, None)
        compiled = bool(compileall.compile_dir(package, quiet=1))
        if not compiled:
            raise SystemExit(f"could not compile {package} (is it writable?); run with --no-bytecode")
    else:  # (a package that has bytecode would still read it: the children import a copy without any)
        env[NO_BYTECODE] = "1"
        copy_dir = Path(tempfile.mkdtemp(prefix="benchledger-scale-src-"))
        atexit.register(shutil.rmtree, copy_dir, True)
        package = copy_dir / "benchledger"
        shutil.copytree(Path(benchledger.__file__).resolve().parent, package,
                        ignore=shutil.ignore_patterns("__pycache__"))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(copy_dir), env.get("PYTHONPATH")) if p)
    _CHILD_ENV = env
    found = subprocess.run([sys.executable, "-c", "import benchledger; print(benchledger.__file__)"],
                           capture_output=True, text=True, check=True, env=env).stdout.strip()
    if Path(found).resolve().parent != package:
        raise SystemExit(f"the children import benchledger from {found}, not {package}")
    if bytecode:
        warm_up()
    return {"children": "bytecode written and reused" if bytecode else f"{NO_BYTECODE}=1 (no bytecode)",
            "package": str(package), "compiled_first": compiled}


def generate(root: Path, count: int) -> None:
    """Write ``count`` benchmark records (each a distinct two-arm experiment) plus shared references."""
    for data in (source(), *reference_records()):
        record = RECORD_ADAPTER.validate_python(data)
        path = root / f"{record.kind}s" / f"{record.id}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dump_record(record), encoding="utf-8")
    template = RECORD_ADAPTER.validate_python(benchmark("synthetic"))
    folder = root / "benchmarks"
    folder.mkdir(exist_ok=True)
    for i in range(count):
        record = copy.deepcopy(template)
        record.id = f"synthetic-{i:06d}"
        record.workload.concurrency = i + 1  # distinct conditions: not duplicates of each other
        (folder / f"{record.id}.md").write_text(dump_record(record), encoding="utf-8")


def baseline_environment(rev: str) -> dict[str, Any]:
    """Set the baseline's environment: ``src/`` of ``rev`` extracted (``git archive``) into a temporary folder
    first on ``PYTHONPATH``, compiled or not as the current package's children are. What it did, for the JSON."""
    global _BASELINE_ENV
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"],
                            capture_output=True, text=True, check=False)
    if commit.returncode != 0:
        raise SystemExit(f"--baseline {rev}: not a commit of {REPO} ({commit.stderr.strip()})")
    sha = commit.stdout.strip()
    folder = Path(tempfile.mkdtemp(prefix="benchledger-scale-baseline-"))
    atexit.register(shutil.rmtree, folder, True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", sha, "src"], capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    package = folder / "src" / "benchledger"
    env = dict(_CHILD_ENV)
    if NO_BYTECODE not in env and not compileall.compile_dir(package, quiet=1):
        raise SystemExit(f"could not compile the baseline's package in {package}")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(folder / "src"), _CHILD_ENV.get("PYTHONPATH")) if p)
    found = subprocess.run([sys.executable, "-c", "import benchledger; print(benchledger.__file__)"],
                           capture_output=True, text=True, check=True, env=env).stdout.strip()
    if Path(found).resolve().parent != package.resolve():
        raise SystemExit(f"the baseline's children import benchledger from {found}, not {package}")
    _BASELINE_ENV = env
    return {"rev": sha, "package": str(package), "target_cold_ratio": TARGET_COLD_RATIO}


def cli(*args: str, baseline: bool = False) -> dict[str, Any]:
    """Run one ``benchledger`` command (``baseline``: the baseline's); its wall time, CPU time (user + sys) and
    output."""
    load = round(os.getloadavg()[0], 2)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    env = _BASELINE_ENV if baseline else _CHILD_ENV
    if env is None:
        raise SystemExit("no baseline was set up (--baseline)")
    out = subprocess.run([sys.executable, "-m", "benchledger", *args], capture_output=True, text=True,
                         timeout=1800, check=False, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode not in (0, 1):
        raise SystemExit(f"benchledger {' '.join(args)} failed ({out.returncode}): {out.stderr.strip()[-300:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "load": load, "stdout": out.stdout,
            "stderr": out.stderr[-300:]}


def warm_up() -> None:
    """One run of each measured path on a tiny ledger, so the modules they import (dependencies too) have their
    bytecode written before anything is timed."""
    with tempfile.TemporaryDirectory(prefix="benchledger-scale-") as tmp:
        root = Path(tmp) / "ledger"
        generate(root, 3)
        led = ("--ledger", str(root))
        cli("audit", *led)
        touch(root, 1, "warm-up")
        cli("query", QUERY, "-f", "csv", *led)
        cli("query", QUERY, "-f", "csv", "--no-cache", *led)


def touch(root: Path, count: int, tag: str, first: int = 0) -> None:
    """Change ``count`` benchmark files from the ``first`` in name order (a new title: a real edit, still valid)."""
    for path in sorted((root / "benchmarks").iterdir())[first:first + count]:
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("title: Test experiment", f"title: Test experiment {tag}", 1),
                        encoding="utf-8")


def settle(root: Path) -> None:
    """Wait until the newest file of ``root`` is older than ``scan.RACY_NS``: a build that scans files written
    in the seconds before it keeps no stat digest, and the command after it hashes them again (the cost of
    the first command after a write, not of a warm one)."""
    newest = max(max(st.st_mtime_ns, st.st_ctime_ns) for p in root.rglob("*") if p.is_file() for st in [p.stat()])
    time.sleep(max(0.0, (newest + RACY_NS - time.time_ns()) / 1e9 + 0.1))


def cold_audit(root: Path) -> dict[str, Any]:
    """``benchledger audit`` with no cache (the folder this benchmark's earlier runs wrote removed first); it must pass."""
    shutil.rmtree(root / CACHE_FOLDER, ignore_errors=True)
    cold = cli("audit", "--ledger", str(root))
    summary = (cold["stdout"].strip().splitlines() or [""])[-1]
    if " 0 errors" not in summary:
        raise SystemExit(f"the synthetic ledger's audit did not pass: {cold['stdout'][-300:]!r} {cold['stderr']!r}")
    return cold


def measure(sizes: list[int], with_site: bool, repeat: int) -> dict[int, dict[str, Any]]:
    """Every size's ledger generated first, then ``repeat`` rounds, each of every size in turn (ascending, then
    descending: a steady drift of the host's speed weighs on no size more than another): cold audit, the
    baseline's cold query, warm query, the query after one file changed. So a growth ratio's two sides are
    measured within a round too, not one size's samples all before the other's. Then per size: 100 files
    changed, ``--no-cache`` and ``site build``."""
    with tempfile.TemporaryDirectory(prefix="benchledger-scale-") as tmp:
        roots = {n: Path(tmp) / f"ledger-{n}" for n in sizes}
        for n, root in roots.items():
            generate(root, n)
        for root in roots.values():
            settle(root)
        runs: dict[int, dict[str, list[dict[str, Any]]]] = {n: {"cold": [], "base": [], "warm": [], "one": []}
                                                            for n in sizes}
        for i in range(repeat):
            for n in (sizes if i % 2 == 0 else sizes[::-1]):
                _round(roots[n], n, i, runs[n])
            print(f"round {i + 1} of {repeat}: " + ", ".join(
                f"N={n} cold {runs[n]['cold'][-1]['wall_s']} s" for n in sizes), file=sys.stderr, flush=True)
        out = {}
        for n, root in roots.items():
            led = ("--ledger", str(root))
            touch(root, 100, "hundred")
            hundred = cli("query", QUERY, "-f", "csv", *led)
            uncached = cli("query", QUERY, "-f", "csv", "--no-cache", *led)
            _expect(n, hundred, uncached)
            r = runs[n]
            out[n] = {"cold_audit_index": _median(r["cold"]), "warm_query": _median(r["warm"]),
                      "one_file_changed_query": _median(r["one"]), "hundred_files_changed_query": _times(hundred),
                      "no_cache_query": _times(uncached)}
            if r["base"]:
                out[n]["baseline_cold_query"] = _median(r["base"])
            if with_site:
                start = time.perf_counter()
                cli("site", "build", "--out", str(Path(tmp) / f"site-{n}"), *led)
                out[n]["site_build"] = {"wall_s": round(time.perf_counter() - start, 3)}
        return out


def _round(root: Path, count: int, i: int, runs: dict[str, list[dict[str, Any]]]) -> None:
    """One round on one ledger (a ratio's two sides in the same machine state): cold audit, the baseline's
    cold query, warm query, then the query after the ``i``-th benchmark file changed."""
    led = ("--ledger", str(root))
    runs["cold"].append(cold_audit(root))
    if _BASELINE_ENV is not None:
        runs["base"].append(cli("query", QUERY, "-f", "csv", *led, baseline=True))
        _expect(count, runs["base"][-1])
    runs["warm"].append(cli("query", QUERY, "-f", "csv", *led))
    touch(root, 1, f"one-{i}", first=i)
    runs["one"].append(cli("query", QUERY, "-f", "csv", *led))
    _expect(count, runs["warm"][-1], runs["one"][-1])


def _expect(count: int, *answers: dict[str, Any]) -> None:
    expected = f"count_star()\n{2 * count}\n"
    for run in answers:
        if run["stdout"] != expected:
            raise SystemExit(f"query answered {run['stdout']!r}, expected {expected!r}")


def _times(run: dict[str, Any]) -> dict[str, float]:
    return {"wall_s": run["wall_s"], "cpu_s": run["cpu_s"], "load": run["load"]}


def _median(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The median wall and CPU seconds of ``runs`` (each taken apart), and every sample."""
    return {"wall_s": round(statistics.median(r["wall_s"] for r in runs), 3),
            "cpu_s": round(statistics.median(r["cpu_s"] for r in runs), 3),
            "samples": [_times(r) for r in runs]}


def measure_bundled() -> dict[str, Any]:
    """The shipped ledger (a copy): cold audit, warm query, and the query after one benchmark file changed
    (a line added to its body), as for the synthetic ones."""
    with tempfile.TemporaryDirectory(prefix="benchledger-scale-") as tmp:
        root = Path(tmp) / "ledger"
        shutil.copytree(bundled_ledger_dir(), root, ignore=shutil.ignore_patterns(CACHE_FOLDER))
        led = ("--ledger", str(root))
        cold = cli("audit", *led)
        warm = [cli("query", QUERY, "-f", "csv", *led) for _ in range(3)]
        path = sorted((root / "benchmarks").iterdir())[0]
        path.write_text(path.read_text(encoding="utf-8") + "\nEdited by the scale benchmark.\n", encoding="utf-8")
        one = cli("query", QUERY, "-f", "csv", *led)
        if one["stdout"] != warm[0]["stdout"] or not one["stdout"].startswith("count_star()"):
            raise SystemExit(f"query answered {one['stdout']!r} after one change, {warm[0]['stdout']!r} before")
        return {"records": len([p for p in root.glob("*/*.md")]), "cold_audit_index": _times(cold),
                "warm_query": {"wall_s": statistics.median(w["wall_s"] for w in warm),
                               "cpu_s": statistics.median(w["cpu_s"] for w in warm)},
                "one_file_changed_query": _times(one)}


def ratios(results: dict[int, dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for n, r in results.items():
        cold = r["cold_audit_index"]
        out[str(n)] = {
            f"{name}_over_cold_{unit}": round(r[name][unit] / cold[unit], 4)
            for name in ("warm_query", "one_file_changed_query", "hundred_files_changed_query")
            for unit in ("wall_s", "cpu_s")
        }
        out[str(n)]["cold_over_warm_wall"] = round(cold["wall_s"] / r["warm_query"]["wall_s"], 2)
        for name in ("warm_query", "one_file_changed_query"):  # each round's ratio, and their median
            pairs = [round(x["wall_s"] / c["wall_s"], 4)
                     for x, c in zip(r[name]["samples"], cold["samples"], strict=True)]
            out[str(n)][f"{name}_over_cold_wall_pairs"] = pairs
            out[str(n)][f"{name}_over_cold_wall_pairs_median"] = round(statistics.median(pairs), 4)
        if "baseline_cold_query" in r:  # (the medians' ratio, and each pair's: a sample and the baseline's after it)
            base = r["baseline_cold_query"]
            out[str(n)].update({f"cold_over_baseline_{unit}": round(cold[unit] / base[unit], 4)
                                for unit in ("wall_s", "cpu_s")})
            out[str(n)]["cold_over_baseline_wall_pairs"] = [
                round(c["wall_s"] / b["wall_s"], 4) for c, b in zip(cold["samples"], base["samples"], strict=True)]
    sizes = sorted(results)
    for small, big in pairwise(sizes):
        out[f"growth_{big}_over_{small}"] = {
            "records": round(big / small, 2),
            **{f"{name}_{unit}": round(results[big][name][unit] / results[small][name][unit], 3)
               for name in ("cold_audit_index", "warm_query", "one_file_changed_query")
               for unit in ("wall_s", "cpu_s")},
        }
        pairs = [round(b["wall_s"] / a["wall_s"], 3) for a, b in zip(
            results[small]["cold_audit_index"]["samples"], results[big]["cold_audit_index"]["samples"], strict=True)]
        out[f"growth_{big}_over_{small}"]["cold_audit_index_wall_pairs"] = pairs  # (each round's)
        out[f"growth_{big}_over_{small}"]["cold_audit_index_wall_pairs_median"] = round(statistics.median(pairs), 3)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 20000])
    parser.add_argument("--site", action="store_true", help="also time `site build`")
    parser.add_argument("--bundled", action="store_true", help="also time a copy of the shipped ledger")
    parser.add_argument("--repeat", type=int, default=3, choices=range(1, 10), metavar="N",
                        help="samples of the cold audit and of the one-file change, each (default 3; median)")
    parser.add_argument("--baseline", nargs="?", const=BASELINE_REV, default=None, metavar="REV",
                        help="also time the cold query of the code at REV side by side (default REV: "
                             f"{BASELINE_REV[:7]}, the commit issue 15 was filed against)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--no-bytecode", action="store_true",
                      help=f"run the children with {NO_BYTECODE}=1 (the sandbox's setting)")
    mode.add_argument("--both-bytecode", action="store_true", help="measure each size with and without bytecode")
    args = parser.parse_args()
    load_before = os.getloadavg()
    bytecode: dict[str, Any] = {"this_process": {NO_BYTECODE: os.environ.get(NO_BYTECODE)}}
    report: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "load_average_before": [round(x, 2) for x in load_before]},
                              "query": QUERY, "bytecode": bytecode}
    for written in ([True, False] if args.both_bytecode else [not args.no_bytecode]):
        key = "results" if written or not args.both_bytecode else "results_no_bytecode"
        bytecode[key] = child_environment(written)
        if args.baseline is not None:
            report["baseline"] = baseline_environment(args.baseline)
        results = measure(sorted(set(args.sizes)), args.site, args.repeat)
        report[key] = {str(n): r for n, r in results.items()}
        report["ratios" if key == "results" else "ratios_no_bytecode"] = ratios(results)
        if args.bundled:
            report["bundled" if key == "results" else "bundled_no_bytecode"] = measure_bundled()
    report["machine"]["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
