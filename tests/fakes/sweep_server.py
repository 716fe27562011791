"""The fake OpenAI server (``openai_server.py``) as a sweep's server template, for the sweep tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

FAKE = Path(__file__).resolve().parent / "openai_server.py"


def fake_sweep(name: str, *, ttft: float, axes: dict[str, list[str]], client: dict[str, Any]) -> dict[str, Any]:
    """A sweep file's data whose one server is the fake, with a baseline and a draft-model:2 value of ``spec``."""
    return {
        "name": name,
        "references": "demo",
        "vars": {"fake": str(FAKE)},
        "servers": {"fake": {
            "launch": f"{{python}} {{fake}} --port {{port}} --ready-file {{out}}/ready-{{cell}}-{{port}} --ttft {ttft} "
                      "{flags}",
            "served_model": "tiny-llama-random", "ready_timeout_s": 60,
            # the fake's speculative steps carry 2 tokens per 10 ms: per-token speed as the baseline's, a speedup
            # within what the acceptance length allows (arms.speedup-exceeds-acceptance)
            "per_value": {"spec": {"none": {"flags": ""},
                                   "draft-model:2": {"flags": "--k 2 --accept-pattern 1 --step 0.01"}}},
            "ledger": {"model": "tiny-llama-random", "engine": "llama-cpp", "accelerator": "cpu-host",
                       "accelerator_count": 1, "weights": "f32", "tp": 1}}},
        "matrix": {"axes": axes},
        "client": {"input_tokens": [16], "output_tokens": [8], "warmup": 0, "max_seconds": 60, "timeout_s": 30,
                   **client},
    }
