"""benchmarks/model_accuracy.py runs on the shipped ledger: campaign hold-out, every used arm scored (measured
records citing no source included), speculative pairs with harmful arms, and docs/model-accuracy.md is the page
this very result renders to (the freshness check)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "model_accuracy.py"


def _script_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("model_accuracy", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_accuracy_script_scores_every_used_arm_and_its_page_is_fresh() -> None:
    out = subprocess.run([sys.executable, str(SCRIPT), "--json"], capture_output=True, text=True, timeout=2400,
                         check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout)
    assert result["arms"] == len(result["rows"]) > 0
    assert all(row["predicted_tok_s"] > 0 for row in result["rows"])
    assert any(row["arm"].startswith("h200-") for row in result["rows"])  # a measured record with no sources
    campaigns = {c["id"]: c for c in result["campaigns"]}
    assert "github.com/sudoingx/qwen38-mtp" in campaigns and len(campaigns["github.com/sudoingx/qwen38-mtp"]
                                                                  ["records"]) > 1
    assert {r["campaign"] for r in result["rows"]} <= set(campaigns)
    assert result["speedup_outcomes"]["measured"].get("harm", 0) > 0  # harmful arms are scored
    assert 0.0 <= result["speedup_right_side_share"] <= 1.0
    assert len(result["worst"]) == 10 and all(w["limiting"] for w in result["worst"])
    halves = result["halves"]  # every campaign in exactly one half, every scored arm and pair counted once
    assert {c["half"] for c in result["campaigns"]} == {"development", "sealed"}
    assert halves["development"]["decode_arms"] + halves["sealed"]["decode_arms"] == result["arms"]
    assert halves["development"]["speedup_pairs"] + halves["sealed"]["speedup_pairs"] == result["speedup_pairs"]
    page = (ROOT / "docs" / "model-accuracy.md").read_text(encoding="utf-8")
    assert page == _script_module().render(result), "docs/model-accuracy.md is stale: run the script"


def test_page_text_reads_items_paragraphs_and_refuses_a_miscounted_note(tmp_path: Path) -> None:
    module = _script_module()
    notes = tmp_path / "notes.md"
    notes.write_text("# title\n\n<!-- a comment\n- not an item -->\n## method\n\n1. first note, wrapped\n   onto two "
                     "lines\n2. second\n\n## halves\n\nRound 1 wrapped\nhere.\n\nRound 2.\n", encoding="utf-8")
    assert module.page_text(notes) == {"method": ["first note, wrapped onto two lines", "second"],
                                       "halves": ["Round 1 wrapped here.", "Round 2."]}
    notes.write_text("## method\n\n1. first\n3. third\n", encoding="utf-8")
    try:
        module.page_text(notes)
    except ValueError as e:
        assert "item 3 where 2 was expected" in str(e)
    else:
        raise AssertionError("a note numbered out of order was read")


def test_the_shipped_page_text_has_every_section_the_page_renders() -> None:
    text = _script_module().page_text()
    assert set(text) == {"method", "selection", "halves", "missed-harms", "decode-bias", "worst"}
    assert all(text.values()) and len(text["method"]) >= 25
    assert all(block == " ".join(block.split()) for blocks in text.values() for block in blocks)
