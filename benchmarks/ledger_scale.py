"""Ledger scale benchmark: audit + index time for N synthetic benchmark records, and how it grows.

Budget (issue 2): 10,000 records in < 10 s on a 2-core machine, and 2x records <= 2.2x time.
Budget (issue 5): `site build` (audit + index + every page, plot, download) of 10,000 records in < 30 s.
Usage: python benchmarks/ledger_scale.py [--sizes 1000 10000] [--site]
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from benchledger.audit import run_audit
from benchledger.catalog.build import build_catalog
from benchledger.ledger import Ledger, dump_record
from benchledger.ledger.store import freeze_for_process
from benchledger.schema import RECORD_ADAPTER

from ledger_builder import benchmark, reference_records, source


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


def measure(count: int, with_site: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="benchledger-scale-") as tmp:
        root = Path(tmp) / "ledger"
        generate(root, count)
        t0 = time.perf_counter()
        ledger = Ledger.load(root)
        freeze_for_process()  # as the CLI does after loading (see benchledger.cli.options.load)
        t1 = time.perf_counter()
        report = run_audit(ledger)
        t2 = time.perf_counter()
        con = build_catalog(ledger, Path(tmp) / "index.duckdb", findings=[f.as_row() for f in report.findings])
        con.close()
        t3 = time.perf_counter()
        out = {"load": t1 - t0, "audit": t2 - t1, "index": t3 - t2, "total": t3 - t0}
        if report.errors:
            raise SystemExit(f"synthetic ledger has audit errors: {report.errors[:3]}")
        if with_site:
            from benchledger.site.build import build_site

            t4 = time.perf_counter()
            build_site(ledger, Path(tmp) / "site")
            out["site"] = time.perf_counter() - t4
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--site", action="store_true", help="also time `site build`")
    args = parser.parse_args()
    results = {n: measure(n, args.site) for n in args.sizes}
    for n, t in results.items():
        parts = "  ".join(f"{k} {v:6.2f}s" for k, v in t.items())
        print(f"N={n:>6}: {parts}")
    sizes = sorted(results)
    for small, big in pairwise(sizes):
        ratio = results[big]["total"] / results[small]["total"]
        print(f"total time ratio N={big}/N={small}: {ratio:.2f} (records ratio {big / small:.1f}; "
              f"linear would be {big / small:.1f})")
    biggest = results[sizes[-1]]["total"]
    print(f"budget: N={sizes[-1]} load+audit+index {biggest:.2f}s (< 10 s required for 10,000)")
    if args.site:
        for small, big in pairwise(sizes):
            ratio = results[big]["site"] / results[small]["site"]
            print(f"site build time ratio N={big}/N={small}: {ratio:.2f} (linear would be {big / small:.1f})")
        print(f"budget: N={sizes[-1]} site build {results[sizes[-1]]['site']:.2f}s "
              "(< 30 s required for 10,000; audit + index + every page, plot and download)")


if __name__ == "__main__":
    main()
