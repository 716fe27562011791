"""Tiny random GGUF models (llama architecture, byte-level BPE vocabulary) for tests and the demo.

Nothing is downloaded: weights are random from a fixed seed, the tokenizer is GPT-2 style byte-level BPE with
256 byte tokens, a few hundred merges learnt from a built-in text, and ``<s>``/``</s>``.

Acceptance is controllable (see issue 3): ``write_target_and_draft`` writes a target whose layers after the
first have their output projections (``attn_output``, ``ffn_down``) multiplied by ``deep_scale`` and a 1-layer
draft that *is* the target's first layer (same embeddings, norm and head). With ``deep_scale=0`` the target's
deeper layers add nothing to the residual stream, so the draft predicts exactly what the target will sample
(acceptance ≈ 100 %); raising ``deep_scale`` lowers acceptance smoothly; ``unrelated_draft=True`` gives a draft
with its own random weights (acceptance ≈ 0 %). Needs the ``engine`` extra (``gguf``, ``numpy``).
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchledger.errors import BenchError

_CORPUS = (
    "the quick brown fox jumps over the lazy dog. speculative decoding drafts tokens with a small model and "
    "the target model verifies them in one step. when the draft agrees with the target the tokens are "
    "accepted and the stream moves faster; when it does not the work is thrown away. measure it, do not "
    "guess it: the benchmark ledger keeps every number with the run that produced it. "
) * 4


@dataclass(frozen=True)
class TinyModelShape:
    """Dimensions of a tiny llama model."""

    n_embd: int = 128
    n_layers: int = 3
    n_ff: int = 384
    n_head: int = 4
    n_head_kv: int = 2
    n_ctx: int = 2048
    n_merges: int = 120


def _byte_to_unicode() -> dict[int, str]:
    """GPT-2's reversible byte → printable unicode map."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(bs, cs, strict=True)}


def build_vocab(n_merges: int) -> tuple[list[str], list[str]]:
    """Byte tokens + ``n_merges`` BPE merges learnt greedily from the built-in corpus → (tokens, merges)."""
    b2u = _byte_to_unicode()
    words = [[b2u[b] for b in (" " + w).encode()] for w in _CORPUS.split()]
    tokens = [b2u[b] for b in range(256)]
    known = set(tokens)
    merges: list[str] = []
    while len(merges) < n_merges:
        pairs: Counter[tuple[str, str]] = Counter()
        for word in words:
            pairs.update(itertools.pairwise(word))
        if not pairs:
            break
        (left, right), _ = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))
        merged = left + right
        merges.append(f"{left} {right}")
        if merged not in known:
            tokens.append(merged)
            known.add(merged)
        for i, word in enumerate(words):
            out: list[str] = []
            j = 0
            while j < len(word):
                if j + 1 < len(word) and word[j] == left and word[j + 1] == right:
                    out.append(merged)
                    j += 2
                else:
                    out.append(word[j])
                    j += 1
            words[i] = out
    return [*tokens, "<s>", "</s>"], merges


def _random_weights(shape: TinyModelShape, n_vocab: int, seed: int) -> dict[str, Any]:
    import numpy as np

    rng = np.random.default_rng(seed)
    e, f = shape.n_embd, shape.n_ff
    head_dim = e // shape.n_head
    kv = head_dim * shape.n_head_kv

    def mat(rows: int, cols: int, scale: float = 1.0) -> Any:
        return (rng.standard_normal((rows, cols)) * scale / np.sqrt(cols)).astype(np.float32)

    w: dict[str, Any] = {
        "token_embd.weight": (rng.standard_normal((n_vocab, e))).astype(np.float32),
        "output_norm.weight": np.ones(e, dtype=np.float32),
        "output.weight": mat(n_vocab, e, 4.0),
    }
    # Zero head rows for the bytes 0x80-0xFF (partial UTF-8: the server would hold them back and merge chunks)
    # and for <s>/</s>: greedy decoding then never picks them, so every token is its own chunk and no EOS
    # cuts a request short.
    w["output.weight"][128:256] = 0.0
    w["output.weight"][n_vocab - 2 :] = 0.0
    for i in range(shape.n_layers):
        p = f"blk.{i}."
        w[p + "attn_norm.weight"] = np.ones(e, dtype=np.float32)
        w[p + "attn_q.weight"] = mat(e, e)
        w[p + "attn_k.weight"] = mat(kv, e)
        w[p + "attn_v.weight"] = mat(kv, e)
        w[p + "attn_output.weight"] = mat(e, e)
        w[p + "ffn_norm.weight"] = np.ones(e, dtype=np.float32)
        w[p + "ffn_gate.weight"] = mat(f, e)
        w[p + "ffn_up.weight"] = mat(f, e)
        w[p + "ffn_down.weight"] = mat(e, f)
    return w


def write_gguf(path: Path, shape: TinyModelShape, weights: dict[str, Any], name: str) -> Path:
    """Write one llama-architecture GGUF file with the tiny BPE vocabulary."""
    try:
        import gguf
    except ImportError as exc:  # pragma: no cover - depends on the optional extra
        raise BenchError("tiny models need the engine extra: pip install 'benchledger[engine]'") from exc
    tokens, merges = build_vocab(shape.n_merges)
    n_layers = sum(1 for k in weights if k.endswith("attn_q.weight"))
    tmp = path.with_suffix(".part")
    writer = gguf.GGUFWriter(str(tmp), "llama")
    writer.add_name(name)
    writer.add_context_length(shape.n_ctx)
    writer.add_embedding_length(shape.n_embd)
    writer.add_block_count(n_layers)
    writer.add_feed_forward_length(shape.n_ff)
    writer.add_head_count(shape.n_head)
    writer.add_head_count_kv(shape.n_head_kv)
    writer.add_rope_dimension_count(shape.n_embd // shape.n_head)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_vocab_size(len(tokens))
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt-2")
    writer.add_token_list(tokens)
    types = [gguf.TokenType.NORMAL] * (len(tokens) - 2) + [gguf.TokenType.CONTROL] * 2
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    writer.add_bos_token_id(len(tokens) - 2)
    writer.add_eos_token_id(len(tokens) - 1)
    writer.add_add_bos_token(False)
    writer.add_chat_template(
        "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}assistant: {% endif %}"
    )
    for tensor_name, array in weights.items():
        writer.add_tensor(tensor_name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    tmp.replace(path)
    return path


@dataclass(frozen=True)
class TinyPair:
    """Paths of a generated target and its draft."""

    target: Path
    draft: Path
    n_vocab: int


def write_target_and_draft(
    folder: Path,
    *,
    shape: TinyModelShape | None = None,
    deep_scale: float = 0.0,
    unrelated_draft: bool = False,
    seed: int = 1234,
) -> TinyPair:
    """Write ``target.gguf`` and ``draft.gguf`` into ``folder`` (acceptance set by ``deep_scale``; see module doc)."""
    shape = shape or TinyModelShape()
    folder.mkdir(parents=True, exist_ok=True)
    tokens, _ = build_vocab(shape.n_merges)
    target = _random_weights(shape, len(tokens), seed)
    for i in range(1, shape.n_layers):
        target[f"blk.{i}.attn_output.weight"] = target[f"blk.{i}.attn_output.weight"] * deep_scale
        target[f"blk.{i}.ffn_down.weight"] = target[f"blk.{i}.ffn_down.weight"] * deep_scale
    if unrelated_draft:
        draft = _random_weights(TinyModelShape(**{**shape.__dict__, "n_layers": 1}), len(tokens), seed + 1)
    else:
        draft = {k: v for k, v in target.items() if not k.startswith("blk.") or k.startswith("blk.0.")}
    draft_shape = TinyModelShape(**{**shape.__dict__, "n_layers": 1})
    t = write_gguf(folder / "target.gguf", shape, target, "tiny-llama-random")
    d = write_gguf(folder / "draft.gguf", draft_shape, draft, "tiny-llama-random-draft")
    return TinyPair(target=t, draft=d, n_vocab=len(tokens))


__all__ = ["TinyModelShape", "TinyPair", "build_vocab", "write_gguf", "write_target_and_draft"]
