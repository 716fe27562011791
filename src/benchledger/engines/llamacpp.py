"""llama.cpp's ``llama-server``: ``llamacpp:`` counters (new names, and two older generations without a draft
count, hence no mean length), per-response ``timings.draft_n`` / ``draft_n_accepted``, ``/props``
``build_info``, the ``{"content"}`` tokenize shape.

Physics-model facts: a hybrid (recurrent) model rolls back its state by keeping one snapshot per rollback slot,
i.e. per verified position (llama.cpp#28123: "writes one snapshot per rollback slot, like
llm_build_delta_net_base::build_conv_state already does"); and the draft head's ``process()`` mirrors every target
batch into the draft context (``common/speculative.cpp``: "process() mirrors whole target batches" for EAGLE3 and
MTP), one head forward over the verified rows besides the k draft forwards; a prompt is decoded in calls of
``n_batch`` = 2048 tokens, each cut into ``n_ubatch`` = 512-row micro-batches that a layer split runs as a pipeline
(llama.cpp#6017, "Pipeline parallelism improves batch processing performance when using multiple GPUs";
``n_ubatch`` "sets the maximum batch size for computation", default 512; ``n_batch`` 2048 is the default of
llama-server and llama-bench ``-b``). Until 2024-06-24 (a818f3028, "CUDA: use MMQ instead of cuBLAS by default",
llama.cpp#8075) a CUDA build multiplied block-quant weights by more than ``MMQ_MAX_BATCH_SIZE`` = 32 rows with
cuBLAS on any GPU whose fp16 was fast (compute capability ≥ 6.0 but 6.1): ``use_mul_mat_q && (!fp16_performance_good
|| src1->ne[1] <= MMQ_MAX_BATCH_SIZE)``, and ``ggml_cuda_op_mul_mat_cublas`` then would "convert src0 and src1 to
fp16, multiply as fp16" (``to_fp16_cuda`` over the whole weight matrix, ``cublasGemmEx`` at ``CUBLAS_COMPUTE_16F``)
(source llama-cpp-ggml-cuda-cu-dc685be). Without flash attention (llama-bench's default ``/* flash_attn */ {false}``
at dc685be and at a818f30, 2024-06-24; source llama-cpp-llm-build-kqv-dc685be) ``llm_build_kqv`` materializes the
scores: ``ggml_mul_mat(ctx, k, q)`` runs as a batched cuBLAS GEMM that writes fp16 scores and converts them to fp32
(2 + 2 + 4 bytes each), ``ggml_soft_max_ext`` reads and writes them in fp32 (4 + 4), and ``ggml_mul_mat(ctx, v,
kq)`` converts them to fp16 and reads that copy (4 + 2 + 2): 24 bytes a score, the mask (one per row, shared by
the heads) left to the cache."""

from __future__ import annotations

import datetime as dt

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
    recurrent_state_snapshots_per_position=True,
    draft_head_catch_up=True,
    prompt_batch=2048,
    prompt_ubatch=512,
    dequant_gemm_rows=32,
    dequant_gemm_until=dt.date(2024, 6, 24),
    score_bytes=24.0,
    unfused_attention_until=dt.date(2024, 6, 24),
)
