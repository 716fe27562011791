"""Secrets never reach run outputs: flags, env assignments, bearer tokens, URL credentials, known values."""

from __future__ import annotations

import pytest

from benchledger.bench.redact import MASK, launch_secrets, redact, redact_value


@pytest.mark.parametrize(("text", "secret"), [
    ("vllm serve m --api-key sk-abc123 --port 8000", "sk-abc123"),
    ("vllm serve m --api-key=sk-abc123", "sk-abc123"),
    ("llama-server --hf-token 'hf_XYZ987'", "hf_XYZ987"),
    ("env HF_TOKEN=hf_XYZ987 vllm serve m", "hf_XYZ987"),
    ("OPENAI_API_KEY=\"sk-q\" bench", "sk-q"),
    ("Authorization: Bearer tok-55aa", "tok-55aa"),
    ("http://alice:pw123@10.0.0.1:8000/v1", "pw123"),
    ("non-default args: {'api_key': 'sk-from-log', 'port': 8000}", "sk-from-log"),
])
def test_patterns_are_masked(text: str, secret: str) -> None:
    out = redact(text)
    assert secret not in out
    assert MASK in out


def test_known_secret_values_are_masked_anywhere() -> None:
    out = redact_value({"argv": ["bench", "--note", "key was s3cr3t-value"], "n": 3}, ["s3cr3t-value"])
    assert out == {"argv": ["bench", "--note", f"key was {MASK}"], "n": 3}


def test_ordinary_text_is_untouched() -> None:
    text = ("vllm serve Qwen/Qwen3-8B --max-num-seqs 32 --max-tokens 256 --tokenizer Qwen/Qwen3-8B "
            "--speculative-config '{\"method\":\"mtp\",\"num_speculative_tokens\":3}' tokens=128")
    assert redact(text) == text


@pytest.mark.parametrize(("text", "secret"), [
    ("llama-server -m m.gguf -k kkk-secret-1 --port 8080", "kkk-secret-1"),
    ("server --key abc-secret-2", "abc-secret-2"),
    ("server --auth=user:pw-secret-3", "user:pw-secret-3"),
    ("argv: ['serve', '--hf-token', 'tok-secret-4', '--port', '8000']", "tok-secret-4"),
    ('args ["--api-key", "sk-secret-5"]', "sk-secret-5"),
    ("a stray sk-abcdefghijkl0123 in a log", "sk-abcdefghijkl0123"),
    ("token hf_AbCdEfGhIjKl0123 printed", "hf_AbCdEfGhIjKl0123"),
    ("ghp_0123456789abcdefABCDEF in text", "ghp_0123456789abcdefABCDEF"),
])
def test_credential_flags_and_shapes_are_masked(text: str, secret: str) -> None:
    assert secret not in redact(text)


def test_launch_secrets_are_taken_by_value_and_masked_in_argv_lists() -> None:
    command = "vllm serve m --hf-token hf_x1y2z3 -k short-k1 --auth=a:b --max-tokens 64 --tokenizer t"
    assert launch_secrets(command) == ["hf_x1y2z3", "short-k1", "a:b"]
    logged = {"argv": ["vllm", "serve", "--api-key", "plain-value-9"], "note": "started with plain-value-9"}
    assert redact_value(logged) == {"argv": ["vllm", "serve", "--api-key", MASK], "note": f"started with {MASK}"}
