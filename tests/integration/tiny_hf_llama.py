"""Write a tiny random HF-format Llama target and its draft for the vLLM tests (run as a script, in a subprocess).

Nothing is downloaded: the tokenizer is a BPE trained here with ``tokenizers`` on a few sentences (ASCII alphabet,
Metaspace pre-tokenizer, so every token decodes to complete text and the server never holds back partial UTF-8),
and the weights are random (``torch.manual_seed``) saved with ``save_pretrained``.

Acceptance is set by construction, as in ``benchledger.bench.tinymodels``: the target has two layers, the draft is
the target's embeddings + first layer + final norm + head. The target's second layer adds to the residual stream
only through its attention ``o_proj`` and MLP ``down_proj``; those are multiplied by ``--deep-scale``. At 0 the
target computes exactly what the draft computes (greedy acceptance ≈ 100 %); larger values make them disagree.

Usage: ``python tiny_hf_llama.py OUT_DIR [--deep-scale S] [--seed N]`` → ``OUT_DIR/target``, ``OUT_DIR/draft``;
prints one JSON line with the paths and the shape (for the test's ledger model record).
"""

from __future__ import annotations

import argparse
import json
import string
from pathlib import Path
from typing import Any

SENTENCES = [
    "the quick brown fox jumps over the lazy dog",
    "speculative decoding drafts a few tokens and the target verifies them in one step",
    "a tiny random model lets the tests start a real server in seconds",
    "benchledger measures throughput latency and acceptance from the engine counters",
    "every number in the ledger traces to a run a quote or a formula",
]
CHAT_TEMPLATE = "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}assistant:"
"""Plain-text chat template, so ``/v1/chat/completions`` works too."""
SHAPE: dict[str, Any] = {
    "hidden_size": 128,
    "intermediate_size": 256,
    "num_attention_heads": 2,
    "num_key_value_heads": 1,
    "target_layers": 2,
    "draft_layers": 1,
    "max_position_embeddings": 1024,
    "vocab_target": 256,
}


def build_tokenizer() -> Any:
    """A BPE over printable ASCII with Metaspace, wrapped as a transformers fast tokenizer."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    alphabet = sorted(set(string.ascii_letters + string.digits + string.punctuation) | {"\u2581"})
    trainer = trainers.BpeTrainer(vocab_size=SHAPE["vocab_target"], special_tokens=["<s>", "</s>", "<unk>"],
                                  initial_alphabet=alphabet, show_progress=False)
    tok.train_from_iterator(SENTENCES * 4, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>")
    fast.chat_template = CHAT_TEMPLATE
    return fast


def write_pair(out: Path, deep_scale: float, seed: int) -> dict[str, Any]:
    """Write ``out/target`` and ``out/draft`` (weights, config, tokenizer); return a description."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = build_tokenizer()
    vocab = len(tokenizer)

    def config(layers: int) -> LlamaConfig:
        return LlamaConfig(
            vocab_size=vocab, hidden_size=SHAPE["hidden_size"], intermediate_size=SHAPE["intermediate_size"],
            num_hidden_layers=layers, num_attention_heads=SHAPE["num_attention_heads"],
            num_key_value_heads=SHAPE["num_key_value_heads"],
            max_position_embeddings=SHAPE["max_position_embeddings"], bos_token_id=tokenizer.bos_token_id,
            eos_token_id=tokenizer.eos_token_id, tie_word_embeddings=False, dtype="float32",
        )

    torch.manual_seed(seed)
    target = LlamaForCausalLM(config(SHAPE["target_layers"]))
    with torch.no_grad():
        target.lm_head.weight.mul_(4.0)  # sharper logits than the default init: fewer near-ties under greedy
        for layer in target.model.layers[SHAPE["draft_layers"]:]:
            layer.self_attn.o_proj.weight.mul_(deep_scale)
            layer.mlp.down_proj.weight.mul_(deep_scale)
    draft = LlamaForCausalLM(config(SHAPE["draft_layers"]))
    shared = {k: v for k, v in target.state_dict().items()
              if not k.startswith("model.layers.") or int(k.split(".")[2]) < SHAPE["draft_layers"]}
    missing, unexpected = draft.load_state_dict(shared, strict=True)
    assert not missing and not unexpected
    paths = {}
    for name, model in (("target", target), ("draft", draft)):
        folder = out / name
        model.save_pretrained(folder)
        tokenizer.save_pretrained(folder)
        paths[name] = str(folder)
    params = {name: sum(p.numel() for p in model.parameters()) for name, model in (("target", target), ("draft", draft))}
    return {**paths, "vocab_size": vocab, "deep_scale": deep_scale, "seed": seed, "params": params, **SHAPE}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--deep-scale", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(json.dumps(write_pair(args.out, args.deep_scale, args.seed)))


if __name__ == "__main__":
    main()
