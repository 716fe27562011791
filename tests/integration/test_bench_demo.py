"""``benchledger demo`` end to end (shortened): real llama.cpp servers, record written, audit clean."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("xllamacpp", reason="needs the engine extra: pip install 'benchledger[engine]'")
pytest.importorskip("gguf", reason="needs the engine extra: pip install 'benchledger[engine]'")

pytestmark = pytest.mark.engine


def test_demo_short(tmp_path: Path) -> None:
    from benchledger.bench.demo import run_demo
    from benchledger.bench.tinymodels import TinyModelShape

    result = run_demo(tmp_path, seconds_per_point=2.0, concurrency=(1, 2), output_tokens=16,
                      shape=TinyModelShape(n_embd=128, n_layers=4, n_ff=256))
    assert result.audit_errors == 0, [f for f in result.findings if f.severity == "error"]
    assert (result.ledger / "benchmarks" / f"{result.record_id}.md").exists()
    assert [o["comparison"]["load_point"] for o in result.session.outputs] == ["conc-1", "conc-2"]
    spec = result.session.outputs[0]["summaries"]["spec"]
    assert spec["completed"] > 0 and spec["spec_decode_acceptance_rate"] is not None
    assert (result.ledger / "runs" / result.record_id / "comparison.json").exists()
    assert result.site is not None and result.site == (tmp_path / "site").resolve()
    assert result.record_id in (result.site / "index.html").read_text(encoding="utf-8")
