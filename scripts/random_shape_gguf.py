"""Write a random-weight llama-architecture target GGUF of a real model's shape and a 1-layer draft of it.

For engine speed runs on real hardware without downloading weights: a decode step reads every weight byte the
same way whatever the values are, so a random model of Llama-3.1-8B's shape moves the same bytes per token as
the real one. What random weights cannot say is anything about text: acceptance here is synthetic.

Acceptance is controllable as in ``benchledger.bench.tinymodels``: the target's layers after the first have
their output projections (``attn_output``, ``ffn_down``) multiplied by ``--deep-scale`` (0 = all zero, the
default), and the draft *is* the target's first layer with the same embeddings, final norm and head. With
``--deep-scale 0`` the deeper layers add nothing to the residual stream, so the draft predicts what the target
will sample (acceptance ≈ 100 %), while the target still stores and reads every byte of all its layers.

Values: one random matrix per tensor shape (numpy, fixed seed), quantised once and written for every layer with
its rows rotated by a layer-dependent offset (distinct bytes at distinct addresses, at memcpy cost). Vocabulary:
the tiny byte-level BPE vocabulary of ``tinymodels`` padded with ``<unused_N>`` tokens (type UNUSED, so the
tokenizer never scans them) up to the real vocabulary size; head rows of the pads, of the bytes 0x80-0xFF and of
``<s>``/``</s>`` are zero so greedy decoding emits one printable token per step and never EOS.

After writing, both files are read back with ``gguf.GGUFReader`` and a manifest (header values, tensor counts,
parameters, bytes by tensor group, file sizes) is written as JSON: the numbers a ledger model record cites.

    python scripts/random_shape_gguf.py --out /tmp/models --preset llama-3.1-8b --wtype q8_0 \
        --manifest /tmp/models/manifest.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

PRESETS: dict[str, dict[str, Any]] = {
    # Llama-3.1-8B config.json: hidden 4096, 32 layers, 32 heads, 8 KV heads, FFN 14336, vocab 128256,
    # rope theta 500000, RMS eps 1e-5, untied embeddings (the ledger's llama-3.1-8b record quotes these).
    "llama-3.1-8b": dict(n_embd=4096, n_layers=32, n_ff=14336, n_head=32, n_head_kv=8, n_vocab=128256,
                         n_ctx=131072, rope_freq_base=500000.0),
    "tiny": dict(n_embd=256, n_layers=4, n_ff=512, n_head=4, n_head_kv=2, n_vocab=2048, n_ctx=4096,
                 rope_freq_base=10000.0),
}


@dataclass(frozen=True)
class Shape:
    """Dimensions of a llama-architecture decoder."""

    n_embd: int
    n_layers: int
    n_ff: int
    n_head: int
    n_head_kv: int
    n_vocab: int
    n_ctx: int
    rope_freq_base: float
    rms_eps: float = 1e-5
    n_merges: int = 120


def _log(msg: str, t0: float) -> None:
    print(f"[gen {time.perf_counter() - t0:7.1f}s] {msg}", flush=True)


def vocabulary(shape: Shape) -> tuple[list[str], list[str], list[int], int]:
    """(tokens, merges, token types, number of real tokens): tiny BPE vocabulary padded to ``n_vocab``."""
    import gguf

    from benchledger.bench.tinymodels import build_vocab

    tokens, merges = build_vocab(shape.n_merges)
    n_real = len(tokens)
    if n_real > shape.n_vocab:
        raise SystemExit(f"n_vocab {shape.n_vocab} is smaller than the base vocabulary ({n_real})")
    types = [int(gguf.TokenType.NORMAL)] * (n_real - 2) + [int(gguf.TokenType.CONTROL)] * 2
    pads = [f"<unused_{i}>" for i in range(shape.n_vocab - n_real)]
    types += [int(gguf.TokenType.UNUSED)] * len(pads)
    return tokens + pads, merges, types, n_real


class Weights:
    """Random base matrices per shape, quantised once; per-layer copies are row rotations of them."""

    def __init__(self, qtype: Any, seed: int) -> None:
        self.qtype = qtype
        self.rng = np.random.default_rng(seed)
        self.bases: dict[str, np.ndarray] = {}

    def quantize(self, data: np.ndarray) -> np.ndarray:
        import gguf

        return np.ascontiguousarray(gguf.quants.quantize(data, self.qtype))

    def base(self, key: str, rows: int, cols: int, scale: float) -> np.ndarray:
        if key not in self.bases:
            f32 = self.rng.standard_normal((rows, cols), dtype=np.float32)
            f32 *= np.float32(scale)
            self.bases[key] = self.quantize(f32)
            del f32
        return self.bases[key]

    @staticmethod
    def rotated(q: np.ndarray, offset: int) -> np.ndarray:
        return np.roll(q, offset % q.shape[0], axis=0) if offset % q.shape[0] else q.copy()


def build_tensors(shape: Shape, w: Weights, n_real: int, deep_scale: float) -> dict[str, np.ndarray]:
    """Target tensors in GGUF order (norms f32, matrices in ``w.qtype``)."""
    e, f = shape.n_embd, shape.n_ff
    kv = (e // shape.n_head) * shape.n_head_kv
    inv = 1.0 / np.sqrt(e)
    tensors: dict[str, np.ndarray] = {}
    tensors["token_embd.weight"] = w.base("vocab-embd", shape.n_vocab, e, 1.0)
    head = w.rotated(w.base("vocab-head", shape.n_vocab, e, 4.0 * inv), 0)
    head[128:256] = 0
    head[n_real - 2:] = 0  # <s>, </s> and every pad: never sampled
    tensors["output_norm.weight"] = np.ones(e, dtype=np.float32)
    tensors["output.weight"] = head
    for i in range(shape.n_layers):
        p = f"blk.{i}."
        off = 7 * i + 1
        deep = i > 0

        def proj(key: str, rows: int, cols: int, scale: float, off: int = off, deep: bool = deep) -> np.ndarray:
            base = w.base(key, rows, cols, scale)
            if deep and deep_scale == 0.0:
                return np.zeros_like(base)
            if deep and deep_scale != 1.0:
                return w.quantize(w.rng.standard_normal((rows, cols), dtype=np.float32) * np.float32(scale * deep_scale))
            return w.rotated(base, off)

        tensors[p + "attn_norm.weight"] = np.ones(e, dtype=np.float32)
        tensors[p + "attn_q.weight"] = w.rotated(w.base("e-e", e, e, inv), off)
        tensors[p + "attn_k.weight"] = w.rotated(w.base("kv-e", kv, e, inv), off)
        tensors[p + "attn_v.weight"] = w.rotated(w.base("kv-e", kv, e, inv), off + 3)
        tensors[p + "attn_output.weight"] = proj("e-e", e, e, inv, off + 5)
        tensors[p + "ffn_norm.weight"] = np.ones(e, dtype=np.float32)
        tensors[p + "ffn_gate.weight"] = w.rotated(w.base("f-e", f, e, inv), off)
        tensors[p + "ffn_up.weight"] = w.rotated(w.base("f-e", f, e, inv), off + 3)
        tensors[p + "ffn_down.weight"] = proj("e-f", e, f, 1.0 / np.sqrt(f))
    return tensors


def write(path: Path, shape: Shape, tensors: dict[str, np.ndarray], vocab: tuple[list[str], list[str], list[int], int],
          qtype: Any, name: str) -> None:
    import gguf

    tokens, merges, types, n_real = vocab
    n_layers = sum(1 for k in tensors if k.endswith("attn_q.weight"))
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
    writer.add_rope_freq_base(shape.rope_freq_base)
    writer.add_layer_norm_rms_eps(shape.rms_eps)
    file_types = {"Q8_0": gguf.LlamaFileType.MOSTLY_Q8_0, "BF16": gguf.LlamaFileType.MOSTLY_BF16,
                  "F16": gguf.LlamaFileType.MOSTLY_F16, "F32": gguf.LlamaFileType.ALL_F32}
    writer.add_file_type(file_types[qtype.name])
    writer.add_vocab_size(len(tokens))
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("gpt-2")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    writer.add_bos_token_id(n_real - 2)
    writer.add_eos_token_id(n_real - 1)
    writer.add_add_bos_token(False)
    writer.add_chat_template(
        "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}assistant: {% endif %}"
    )
    for tensor_name, array in tensors.items():
        if array.dtype == np.float32 and array.ndim == 1:
            writer.add_tensor(tensor_name, array)
        else:
            writer.add_tensor(tensor_name, array, raw_dtype=qtype)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    tmp.replace(path)


def read_back(path: Path) -> dict[str, Any]:
    """Header values and tensor totals of a GGUF file, as read from the file itself."""
    import gguf

    reader = gguf.GGUFReader(str(path))
    header: dict[str, Any] = {}
    for key, field in reader.fields.items():
        if key.startswith("tokenizer.ggml.") and key not in ("tokenizer.ggml.model", "tokenizer.ggml.pre",
                                                            "tokenizer.ggml.bos_token_id",
                                                            "tokenizer.ggml.eos_token_id"):
            if key == "tokenizer.ggml.tokens":
                header[key + ".count"] = len(field.data)
            continue
        if key == "tokenizer.chat_template":
            continue
        try:
            header[key] = field.contents()
        except Exception:  # pragma: no cover - exotic field types
            continue
    groups: dict[str, dict[str, int]] = {}
    types: dict[str, int] = {}
    for t in reader.tensors:
        group = "blocks" if t.name.startswith("blk.") else t.name.removesuffix(".weight")
        g = groups.setdefault(group, {"tensors": 0, "params": 0, "bytes": 0})
        g["tensors"] += 1
        g["params"] += int(t.n_elements)
        g["bytes"] += int(t.n_bytes)
        types[t.tensor_type.name] = types.get(t.tensor_type.name, 0) + 1
    zero = sorted({t.name.split(".", 2)[2] for t in reader.tensors if t.name.startswith("blk.")
                   and int(t.name.split(".")[1]) > 0 and not np.any(t.data[: min(64, len(t.data))])})
    return {
        "file": path.name,
        "file_bytes": path.stat().st_size,
        "header": header,
        "tensors": len(reader.tensors),
        "tensor_types": types,
        "params_total": sum(g["params"] for g in groups.values()),
        "tensor_bytes_total": sum(g["bytes"] for g in groups.values()),
        "groups": groups,
        "deep_tensors_starting_with_zero_bytes": zero,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--preset", choices=sorted(PRESETS), default="llama-3.1-8b")
    parser.add_argument("--layers", type=int, default=None, help="override the preset's layer count")
    parser.add_argument("--wtype", choices=["q8_0", "bf16", "f16", "f32"], default="q8_0")
    parser.add_argument("--deep-scale", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--manifest", type=Path, default=None)
    args = parser.parse_args(argv)
    import gguf

    t0 = time.perf_counter()
    shape = Shape(**PRESETS[args.preset])
    if args.layers is not None:
        shape = replace(shape, n_layers=args.layers)
    qtype = getattr(gguf.GGMLQuantizationType, args.wtype.upper())
    args.out.mkdir(parents=True, exist_ok=True)
    vocab = vocabulary(shape)
    weights = Weights(qtype, args.seed)
    target = build_tensors(shape, weights, vocab[3], args.deep_scale)
    _log(f"target tensors built ({sum(a.nbytes for a in target.values()) / 1e9:.2f} GB)", t0)
    draft = {k: v for k, v in target.items() if not k.startswith("blk.") or k.startswith("blk.0.")}
    write(args.out / "draft.gguf", shape, draft, vocab, qtype, f"{args.preset}-shape-random-draft-1layer")
    _log("draft.gguf written", t0)
    write(args.out / "target.gguf", shape, target, vocab, qtype, f"{args.preset}-shape-random")
    _log("target.gguf written", t0)
    del target, draft
    script = Path(__file__).read_bytes()
    manifest = {
        "generator": "scripts/random_shape_gguf.py",
        "generator_sha256": hashlib.sha256(script).hexdigest(),
        "argv": sys.argv[1:],
        "preset": args.preset,
        "shape": asdict(shape),
        "wtype": args.wtype,
        "deep_scale": args.deep_scale,
        "seed": args.seed,
        "base_vocab_tokens": vocab[3],
        "target": read_back(args.out / "target.gguf"),
        "draft": read_back(args.out / "draft.gguf"),
    }
    text = json.dumps(manifest, indent=2, sort_keys=True, default=str) + "\n"
    if args.manifest:
        args.manifest.write_text(text)
    _log(f"read back: target {manifest['target']['params_total']:,} params, "
         f"{manifest['target']['file_bytes'] / 1e9:.2f} GB file", t0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
