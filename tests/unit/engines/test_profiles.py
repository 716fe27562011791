"""One profile per engine: each ledger engine id maps to at most one profile; unknown ids get the generic one."""

from __future__ import annotations

import pytest

from benchledger.engines import GENERIC, PROFILES, known_counter_families, known_tokenize_shapes, profile_for
from benchledger.ledger import Ledger
from benchledger.perfmodel.inputs import snapshots_per_position


def test_ledger_ids_are_claimed_once_and_exist_in_the_bundled_ledger() -> None:
    claimed = [i for p in PROFILES for i in p.ledger_ids]
    assert len(claimed) == len(set(claimed))
    engines = {r.id for r in Ledger.load(None) if getattr(r, "kind", None) == "engine"}
    assert set(claimed) <= engines


@pytest.mark.parametrize(("engine", "name", "snapshots"), [
    ("vllm", "vllm", True), ("llm-scaler-vllm", "vllm", True), ("llama-cpp", "llama.cpp", True),
    ("sglang", "sglang", False), ("tensorrt-llm", "tensorrt-llm", False), ("mlx-lm", GENERIC.name, False),
    (None, GENERIC.name, False),
])
def test_profile_for(engine: str | None, name: str, snapshots: bool) -> None:
    assert profile_for(engine).name == name
    assert snapshots_per_position(engine) is snapshots


def test_families_are_distinct_and_tokenize_tries_llamacpp_first() -> None:
    names = [f.name for f in known_counter_families()]
    assert names == ["vllm", "llamacpp", "llamacpp-old", "llamacpp-older"]
    assert len({f.draft_tokens for f in known_counter_families()}) == len(names)
    assert known_tokenize_shapes() == ["llamacpp", "vllm"]


def test_every_profile_serves_health_at_the_same_path() -> None:
    assert {p.health_path for p in PROFILES} == {GENERIC.health_path}  # launch.wait_healthy polls that one
