"""`benchledger advise --target-tok-s` says whether any option meets the target (llm-scaler#657's 50 tok/s)."""

from __future__ import annotations

import json

from cli_runner import run_cli

ARGS = ["advise", "--model", "qwen3.8-27b", "--hardware", "intel-arc-pro-b60", "--devices", "2", "--context",
        "50000", "--output-tokens", "1000", "--concurrency", "1", "--json"]


def advise(target: float) -> dict[str, object]:
    out = run_cli(*ARGS, "--target-tok-s", str(target))
    assert out.exit_code == 0, out.stderr
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_unreachable_target_is_said_plainly() -> None:
    result = advise(500)
    assert str(result["target"]).startswith("target 500 tok/s per stream: NOT met by any option")
    assert not any(o["meets_target"] for o in result["options"])  # type: ignore[union-attr]
    assert "not checked" in str(result["format_note"])


def test_reachable_target_names_the_options() -> None:
    result = advise(1)
    assert "met by" in str(result["target"]) and "NOT" not in str(result["target"])
    best = result["options"][0]  # type: ignore[index]
    assert best["meets_target"] is True
