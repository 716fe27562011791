"""`benchledger advise` on the shipped ledger, llm-scaler#657's setup (Qwen3.8-27B, 2× Arc Pro B60, target 50 tok/s):
at 1K the target is met with the acceptance the ledger measured there (its high-acceptance arms); at 50K it is
not, and the answer names the limiting term and the nearest measured arms."""

from __future__ import annotations

import json
import re

from cli_runner import run_cli

ARGS = ["advise", "--model", "qwen3.8-27b", "--hardware", "intel-arc-pro-b60", "--devices", "2",
        "--output-tokens", "1000", "--engine", "llm-scaler-vllm", "--json"]


def advise(context: int, target: float, *extra: str) -> dict[str, object]:
    out = run_cli(*ARGS, "--input-tokens", str(context), "--target-tok-s", str(target), *extra)
    assert out.exit_code == 0, out.stderr
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_1k_target_met_with_the_ledgers_measured_acceptance() -> None:
    result = advise(1000, 50)
    verdict = str(result["target"])
    assert verdict.startswith("target 50 tok/s per stream: met by") and "NOT" not in verdict
    assert "llm-scaler-657-qwen3.8-27b-2x-b60-mtp4-context#" in verdict and "-1k-mtp4-high" in verdict
    k4 = result["acceptance"]["4"]  # type: ignore[index]
    assert k4["origin"].startswith("ledger:") and "#fp8-1k-mtp4-high" in k4["origin"]
    assert k4["high"]["acceptance_length"] == 4.89 and k4["low"]["acceptance_length"] == 2.12
    spec = [o for o in result["options"] if o["spec"] and o["spec"]["k"] == 4]  # type: ignore[union-attr]
    assert spec and all(o["nearest_measured"] for o in spec if o["tok_s_per_stream"] is not None)
    near = spec[0]["nearest_measured"][0]
    assert near["arm"].startswith("llm-scaler-657") and "delta_pct" in near and "context 1000" in near["conditions"]


def test_50k_target_not_met_naming_the_limit_and_the_nearest_arms() -> None:
    verdict = str(advise(50000, 50)["target"])
    assert verdict.startswith("target 50 tok/s per stream: NOT met by any option")
    assert "limited by" in verdict and "nearest measured: llm-scaler-657-qwen3.8-27b-2x-b60-mtp4-context#" in verdict
    assert "-50k-" in verdict


def test_a_given_acceptance_length_replaces_the_ledgers() -> None:
    result = advise(1000, 500, "--acceptance-length", "3.0")
    k4 = result["acceptance"]["4"]  # type: ignore[index]
    assert k4["origin"] == "input (--acceptance-length)" and k4["acceptance_length"] == 3.0
    assert result["acceptance"]["2"]["origin"].startswith("input AL 3 at k=4, converted")  # type: ignore[index]
    assert str(result["target"]).startswith("target 500 tok/s per stream: NOT met by any option")


def test_the_issues_command_line_with_context() -> None:
    """Issue #14's command reads ``--context`` (KV length during decode, as ``predict --context``)."""
    for context, met in ((1000, True), (50000, False)):
        out = run_cli(*ARGS, "--context", str(context), "--target-tok-s", "50")
        assert out.exit_code == 0, out.stderr
        verdict = str(json.loads(out.stdout)["target"])
        assert ("NOT met" not in verdict) is met, verdict


def test_the_reason_names_the_verify_factor_the_prediction_used() -> None:
    """llm-scaler's verify runs its chunk-prefill path (``kernels.VERIFY_KERNEL``); on a B70, whose calibration
    could not fit φ, the prediction at k = 4 costs φ(5) = 5 decode KV reads, and the option's reason states that
    φ, not the calibration's default."""
    args = [a if a != "intel-arc-pro-b60" else "intel-arc-pro-b70" for a in ARGS]
    args[args.index("--devices") + 1] = "1"
    out = run_cli(*args, "--context", "50000", "--target-tok-s", "50")
    assert out.exit_code == 0, out.stderr
    options = json.loads(out.stdout)["options"]
    k4 = [o for o in options if o["spec"] and o["spec"]["k"] == 4 and "φ=" in o["reason"]]
    assert k4 and all(re.search(r"φ=5(?![\d.])", o["reason"]) for o in k4), [o["reason"] for o in k4]
