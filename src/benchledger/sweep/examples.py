"""Commented sweep files printed by ``benchledger sweep example`` (both validate against ``SweepFile``)."""

from __future__ import annotations

EXAMPLE = """\
# A benchledger sweep: servers × matrix → cells; each cell runs the client grid; cells that differ only in
# `spec` are paired with their `spec: none` baseline into one experiment record.
# Schema: schemas/sweep.schema.json. Plan: benchledger sweep plan FILE. Run: benchledger sweep run FILE.
schema_version: 1
name: qwen3-8b-spec
description: vLLM on one H200, MTP k 1/3 vs none, fp8 and bf16 weights, context × concurrency.
vars:
  weights_dir: /shared/models           # placeholders usable in commands (also {out}, {python}, {sweep_dir})
setup: []                                # idempotent commands run first in every allocation (fetch models, …)
servers:
  vllm:
    launch: >-
      vllm serve {weights_dir}/qwen3-8b-{weights} --port {port} --served-model-name qwen3-8b
      --max-model-len 40000 {spec_flags}
    env: {VLLM_LOGGING_LEVEL: WARNING}
    port: auto                           # a free port when the cell runs (or a number)
    ready_timeout_s: 1200
    served_model: qwen3-8b
    version: vllm/vllm-openai:v0.11.0    # declared version (part of the cell key)
    per_value:                           # command fragments chosen by a cell's axis values
      spec:
        none: {spec_flags: ""}
        mtp:1: {spec_flags: "--speculative-config '{{\\"method\\":\\"mtp\\",\\"num_speculative_tokens\\":1}}'"}
        mtp:3: {spec_flags: "--speculative-config '{{\\"method\\":\\"mtp\\",\\"num_speculative_tokens\\":3}}'"}
    ledger:                              # the ids the records cite (must exist in the ledger)
      model: qwen3-8b
      engine: vllm
      accelerator: nvidia-h200-sxm
      accelerator_count: 1
      weights: "{weights}"
      tp: 1
matrix:
  axes:
    spec: [none, mtp:1, mtp:3]
    weights: [fp8, bf16]
  exclude: []                            # e.g. [{spec: mtp:3, weights: bf16}]
  include: []
client:
  input_tokens: [1000, 8000, 32000]
  output_tokens: [256]
  concurrency: [1, 4, 16, 64]
  exclude:                               # client points not run (e.g. KV cache that does not fit)
    - {input_tokens: 32000, concurrency: 64}
  prompts: synthetic                     # or a ShareGPT JSON / JSONL file
  warmup: 4
  num_prompts: 128
  max_seconds: 300
  temperature: 0
  repeats: 1
pairing:
  axis: spec
  baseline: none
  mode: concurrent                       # or alternating (one server at a time, restarted between blocks)
"""

DEMO = """\
# The benchledger demo as a sweep: a tiny random llama target and its 1-layer draft on llama.cpp (xllamacpp),
# generated on this machine (no download); `spec: none` vs draft-model speculation (k=4) × concurrency 1 and 2.
# Run: benchledger sweep run FILE --out sweep-out --record --ledger sweep-ledger
#  or: benchledger sweep run FILE --executor slurm --slurm-partition debug --out /shared/sweep-out ...
# The numbers show the harness working, not any real model's speed.
schema_version: 1
name: demo-tiny-llama
description: Tiny random llama on llama.cpp, draft-model k=4 vs none, concurrency 1 and 2.
title: Tiny random llama on this CPU, llama.cpp (sweep demo)
references: demo                         # writes the demo's model/engine/accelerator/format records if missing
vars:
  models: "{out}/models"
setup:
  - "{python} -m benchledger.sweep.demomodels {models}"
servers:
  tiny-llama:
    launch: >-
      {python} -m benchledger.bench.llamaserver --model {models}/target.gguf --port {port}
      --parallel 2 --threads 1 --alias tiny-llama-random {spec_flags}
    ready_timeout_s: 120
    served_model: tiny-llama-random
    per_value:
      spec:
        none: {spec_flags: ""}
        draft-model:4: {spec_flags: "--draft {models}/draft.gguf --draft-max 4"}
    ledger:
      model: tiny-llama-random
      engine: llama-cpp
      accelerator: cpu-host
      accelerator_count: 1
      weights: f32
      tp: 1
matrix:
  axes:
    spec: [none, draft-model:4]
client:
  input_tokens: [32]
  output_tokens: [16]
  concurrency: [1, 2]
  warmup: 1
  num_prompts: 4
  max_seconds: 30
  temperature: 0
  timeout_s: 60
pairing:
  axis: spec
  baseline: none
  mode: concurrent
"""


def example_text(demo: bool = False) -> str:
    """The commented example sweep file (``demo``: the one that runs here on the tiny llama.cpp models)."""
    return DEMO if demo else EXAMPLE


__all__ = ["DEMO", "EXAMPLE", "example_text"]
