"""vLLM (and forks that keep its serving surface): ``vllm:`` counters, per-request speculative metrics,
``/version``, the ``{"prompt", "model"}`` tokenize shape, one recurrent-state snapshot per verified position
(vllm#49887)."""

from __future__ import annotations

from benchledger.engines.profile import CounterFamily, EngineProfile, ResponseFields, VersionSource

PROFILE = EngineProfile(
    name="vllm",
    ledger_ids=("vllm", "llm-scaler-vllm"),
    counter_families=(CounterFamily(
        name="vllm",
        drafts="vllm:spec_decode_num_drafts_total",
        draft_tokens="vllm:spec_decode_num_draft_tokens_total",
        accepted="vllm:spec_decode_num_accepted_tokens_total",
        per_position="vllm:spec_decode_num_accepted_tokens_per_pos_total",
        generated_tokens="vllm:generation_tokens_total",
    ),),
    response_fields=ResponseFields(kind="vllm-per-request", container="metrics", nested="speculative_decoding",
                                   draft_tokens="num_draft_tokens", accepted_tokens="num_accepted_draft_tokens",
                                   drafts="num_spec_steps"),
    version_sources=(VersionSource("/version", "version"),),
    tokenize_shape="vllm",
    recurrent_state_snapshots_per_position=True,
)
