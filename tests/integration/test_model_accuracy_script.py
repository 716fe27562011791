"""benchmarks/model_accuracy.py runs on the shipped ledger (measured records citing no source included) and
scores every arm it uses: each used arm gets a held-out prediction."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_accuracy_script_scores_every_used_arm() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "model_accuracy.py"), "--assume-context", "1000",
                          "--json"], capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout)
    assert result["arms"] == len(result["rows"]) > 0
    assert all(row["predicted_tok_s"] > 0 for row in result["rows"])
    assert any(row["arm"].startswith("h200-") for row in result["rows"])  # a measured record with no sources
    assert 0.0 <= result["speedup_right_side_share"] <= 1.0
