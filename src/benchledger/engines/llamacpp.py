"""llama.cpp's ``llama-server``: ``llamacpp:`` counters (new names, and two older generations without a draft
count, hence no mean length), per-response ``timings.draft_n`` / ``draft_n_accepted``, ``/props``
``build_info``, the ``{"content"}`` tokenize shape."""

from __future__ import annotations

from benchledger.engines.profile import CounterFamily, EngineProfile, ResponseFields, VersionSource

PROFILE = EngineProfile(
    name="llama.cpp",
    ledger_ids=("llama-cpp",),
    counter_families=(
        CounterFamily(
            name="llamacpp",
            drafts="llamacpp:spec_decode_num_drafts_total",
            draft_tokens="llamacpp:spec_decode_num_draft_tokens_total",
            accepted="llamacpp:spec_decode_num_accepted_tokens_total",
            per_position="llamacpp:spec_decode_num_accepted_tokens_per_pos_total",
            generated_tokens="llamacpp:tokens_predicted_total",
        ),
        CounterFamily(name="llamacpp-old", draft_tokens="llamacpp:n_drafted_total",
                      accepted="llamacpp:n_drafted_accepted_total", generated_tokens="llamacpp:tokens_predicted_total"),
        CounterFamily(name="llamacpp-older", draft_tokens="llamacpp:n_draft_total",
                      accepted="llamacpp:n_draft_accepted_total", generated_tokens="llamacpp:tokens_predicted_total"),
    ),
    response_fields=ResponseFields(kind="llamacpp-timings", container="timings", draft_tokens="draft_n",
                                   accepted_tokens="draft_n_accepted"),
    version_sources=(VersionSource("/props", "build_info"),),
    tokenize_shape="llamacpp",
)
