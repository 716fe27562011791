"""``benchledger show ID``: a summary first — title, subject, arms with headline results and derived speedups,
efficiency, findings — and the record's full YAML only with ``--yaml``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from benchledger.cli.render import display_path, print_table
from benchledger.ledger.duckdb_engine import duckdb
from benchledger.schema import Benchmark, Record

HEADLINE_METRICS = ("output_throughput", "per_stream_throughput", "request_throughput", "tpot", "ttft", "itl")
HEADLINE_STATS = ("value", "median", "mean")
"""Per arm, these metrics at the first of these statistics it has; the rest are in ``--yaml``."""

_ARM_ROWS = """
SELECT r.arm, r.metric, r.stat, r.value, r.unit, round(c.speedup, 4) AS speedup
FROM results r LEFT JOIN comparisons c
  ON c.record_id = r.record_id AND c.arm = r.arm AND c.metric = r.metric AND c.stat = r.stat
WHERE r.record_id = ?
"""
_EFFICIENCY = """
SELECT arm, metric, stat, value, unit, bound, round(ceiling, 3) AS ceiling, ceiling_unit,
       coalesce(CAST(round(efficiency_pct, 1) AS VARCHAR), efficiency_note) AS efficiency_pct, limiting
FROM efficiency WHERE record_id = ? ORDER BY arm, metric, stat
"""
_FINDINGS = ("SELECT severity, code, field, message, waived FROM findings WHERE record = ? "
             "ORDER BY severity, code, field")


def _text(value: Any) -> str:
    """A condition or quantity as a reader wants it: its value, or ``unknown (reason)``."""
    if value is None:
        return "—"
    unknown = getattr(value, "unknown", None)
    if unknown is not None:
        return f"unknown ({unknown})"
    inner = getattr(value, "value", value)
    return str(inner)


def _subject_line(record: Benchmark) -> str:
    s = record.subject
    tp = getattr(s.parallelism, "tp", None) if s.parallelism is not None else None
    parts = [f"model {s.model}", f"engine {s.engine} {_text(s.engine_version)}",
             f"hardware {s.accelerator} × {_text(s.accelerator_count)}", f"weights {_text(s.weights)}"]
    if tp is not None:
        parts.append(f"tp {_text(tp)}")
    return "subject: " + " · ".join(parts)


def _workload_line(record: Benchmark) -> str:
    w = record.workload
    return (f"workload: {w.scenario} · input {_text(w.input_tokens)} · output {_text(w.output_tokens)} tokens · "
            f"concurrency {_text(w.concurrency)} · warmup {_text(w.warmup)}")


def _arm_label(record: Benchmark, name: str) -> str:
    """What sets this arm apart: speculation, its own subject/workload fields, its baseline."""
    arm = next(a for a in record.arms if a.name == name)
    bits = [f"{arm.speculative.method} k={_text(arm.speculative.k)}"] if arm.speculative is not None else []
    for override in (arm.subject, arm.workload):
        if override is not None:
            bits += [f"{k}={_text(getattr(override, k))}" for k in override.model_dump(exclude_none=True)]
    if arm.baseline:
        bits.append(f"vs {arm.baseline}")
    return ", ".join(bits)


def headline_rows(con: duckdb.DuckDBPyConnection, record: Benchmark) -> tuple[list[list[Any]], int]:
    """(rows of arm, conditions, metric, stat, value, unit, speedup; how many results were left out)."""
    rows = con.execute(_ARM_ROWS, [record.id]).fetchall()
    order = {a.name: i for i, a in enumerate(record.arms)}
    best: dict[tuple[str, str], tuple[Any, ...]] = {}
    for row in rows:
        arm, metric, stat = row[0], row[1], row[2]
        if metric not in HEADLINE_METRICS or stat not in HEADLINE_STATS:
            continue
        key = (arm, metric)
        if key not in best or HEADLINE_STATS.index(stat) < HEADLINE_STATS.index(best[key][2]):
            best[key] = row
    chosen = sorted(best.values(), key=lambda r: (order.get(r[0], 99), HEADLINE_METRICS.index(r[1])))
    out = [[r[0], _arm_label(record, r[0]), r[1], r[2], r[3], r[4], r[5]] for r in chosen]
    return out, len(rows) - len(chosen)


def render_show(out: Console, record: Record, path: Path, con: duckdb.DuckDBPyConnection, *, as_yaml: bool) -> None:
    """Print the summary of one record (see the module docstring)."""
    out.print(f"[bold]{escape(record.title)}[/]", highlight=False)
    out.print(f"{record.kind} {record.id} · {display_path(path)}", markup=False)
    if isinstance(record, Benchmark):
        out.print(_subject_line(record), markup=False)
        out.print(_workload_line(record), markup=False)
        rows, rest = headline_rows(con, record)
        print_table(out, ["arm", "conditions", "metric", "stat", "value", "unit", "speedup"], rows,
                    title="arms (headline results; speedup = arm vs its baseline)")
        if rest:
            out.print(f"(+{rest} more results: --yaml, or benchledger query \"SELECT * FROM results WHERE "
                      f"record_id = '{record.id}'\")", markup=False)
        cur = con.execute(_EFFICIENCY, [record.id])
        eff = cur.fetchall()
        if eff:
            print_table(out, [d[0] for d in cur.description], eff, title="efficiency (result vs physical ceiling)")
    else:
        fields = record.model_dump(exclude={"id", "kind", "title", "body", "history", "sources"}, exclude_none=True)
        for name, value in fields.items():
            if not isinstance(value, list | dict) or "value" in value or "unknown" in value:
                shown = value.get("value", f"unknown ({value.get('unknown')})") if isinstance(value, dict) else value
                out.print(f"{name}: {shown}", markup=False)
    findings = con.execute(_FINDINGS, [record.id]).fetchall()
    shown = [f for f in findings if not f[4]]
    for severity, code, field, message, _waived in shown:
        out.print(f"{severity} {code} {field}: {message}", markup=False)
    waived = len(findings) - len(shown)
    out.print(f"{len(shown)} audit finding(s)" + (f", {waived} waived" if waived else ""), markup=False)
    if as_yaml:
        from benchledger.ledger.io import dump_record

        out.print(dump_record(record), markup=False)
    else:
        out.print("full record: --yaml", markup=False)


__all__ = ["HEADLINE_METRICS", "headline_rows", "render_show"]
