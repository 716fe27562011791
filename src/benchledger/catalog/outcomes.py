"""The most telling speculative-decoding outcomes: where speculation helped most and hurt most, one row per arm.

Read from the ``spec_outcomes`` view. Per arm one decode-speed metric — output throughput, else per-stream
throughput, else TPOT — at its ``value``, else ``median``, else ``mean``, so an arm never counts twice.
"""

from __future__ import annotations

from typing import Any

from benchledger.ledger.duckdb_engine import duckdb

DECODE_METRICS = ("output_throughput", "per_stream_throughput", "tpot")
COLUMNS = ["record_id", "arm", "spec", "accelerator", "engine", "ctx", "conc", "metric", "speedup", "outcome"]

_ONE_PER_ARM = f"""
WITH ranked AS (
  SELECT *, row_number() OVER (
      PARTITION BY record_id, arm
      ORDER BY list_position({list(DECODE_METRICS)}, metric), list_position(['value', 'median', 'mean'], stat)
  ) AS pick
  FROM spec_outcomes
  WHERE metric IN {DECODE_METRICS} AND stat IN ('value', 'median', 'mean') AND speedup IS NOT NULL
)
SELECT record_id, arm, spec_method || coalesce(' k=' || CAST(CAST(spec_k AS BIGINT) AS VARCHAR), '') AS spec, accelerator, engine,
       input_tokens AS ctx, concurrency AS conc, metric, round(speedup, 3) AS speedup, outcome
FROM ranked WHERE pick = 1
"""


def telling_outcomes(con: duckdb.DuckDBPyConnection, top: int = 5) -> dict[str, Any]:
    """``helped`` (largest speedups > 1) and ``hurt`` (smallest < 1), ``top`` each, and outcome counts."""
    rows = con.execute(_ONE_PER_ARM + " ORDER BY speedup DESC, record_id, arm").fetchall()
    speed = COLUMNS.index("speedup")
    helped = [r for r in rows if r[speed] > 1][:top]
    hurt = sorted((r for r in rows if r[speed] < 1), key=lambda r: (r[speed], r[0], r[1]))[:top]
    counts: dict[str, int] = {}
    for r in rows:
        counts[r[-1]] = counts.get(r[-1], 0) + 1
    return {"columns": COLUMNS, "helped": helped, "hurt": hurt, "arms": len(rows), "counts": counts}


__all__ = ["COLUMNS", "DECODE_METRICS", "telling_outcomes"]
