"""`benchledger predict` refuses what it cannot honestly predict: configs that do not fit in memory (unless
--ignore-fit, with the numbers), --k without --spec, unknown speculative methods."""

from __future__ import annotations

import json
import re
import subprocess
import sys

BASE = ["predict", "--model", "qwen3.8-27b", "--hardware", "intel-arc-pro-b60", "--context", "1000"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    out = subprocess.run([sys.executable, "-m", "benchledger", *BASE, *args], capture_output=True, text=True,
                         timeout=120, check=False)
    out.stderr = " ".join(re.sub(r"[│╭╮╰╯─]", " ", out.stderr).split())  # typer's error box, unwrapped
    return out


def test_predict_refuses_a_config_that_does_not_fit_and_prints_the_numbers() -> None:
    out = run("--weights", "bf16", "--json")  # 27 B params × 2 bytes on one 24 GB card
    assert out.returncode == 2
    assert "does not fit" in out.stderr and "weights 5" in out.stderr and "GB" in out.stderr
    forced = run("--weights", "bf16", "--ignore-fit", "--json")
    assert forced.returncode == 0, forced.stderr
    memory = json.loads(forced.stdout)["memory"]
    assert memory["fits"] is False and memory["need_gb"] > memory["have_gb"]


def test_two_cards_fit_fp8() -> None:
    out = run("--weights", "fp8-e4m3", "--devices", "2", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["memory"]["fits"] is True


def test_k_without_spec_and_unknown_methods_are_errors() -> None:
    no_spec = run("--weights", "fp8-e4m3", "--devices", "2", "--k", "4")
    assert no_spec.returncode == 2 and "need --spec" in no_spec.stderr
    unknown = run("--weights", "fp8-e4m3", "--devices", "2", "--spec", "lookahead", "--k", "2",
                  "--acceptance-length", "2")
    assert unknown.returncode == 2 and "unknown --spec method 'lookahead'" in unknown.stderr
