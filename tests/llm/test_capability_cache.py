"""Capabilities cached in the real SQLite session store survive a restart and spare the server a second lookup."""

from __future__ import annotations

from pathlib import Path

from agent_server.config import LLMConfig
from agent_server.llm.base import ModelInfo
from agent_server.llm.capabilities import StoreCapabilityCache, discover
from agent_server.llm.ollama import OllamaProvider
from agent_server.store.sessions import Store
from tests.fakes.fake_llm import FakeLLMServer, FakeModel


def shows(fake: FakeLLMServer) -> int:
    return len([r for r in fake.requests if r.path == "/api/show"])


def test_round_trip_keeps_every_field_across_a_reopen(tmp_path: Path) -> None:
    info = ModelInfo(
        name="qwen3:8b",
        context_length=40960,
        supports_tools=True,
        supports_thinking=False,
        supports_embeddings=None,
        supports_vision=False,
        details={"family": "qwen3", "families": ["qwen3"], "parameter_size": "8.2B"},
    )
    with Store(tmp_path / "s.db") as store:
        StoreCapabilityCache(store).put("http://127.0.0.1:11434", "qwen3:8b", info)
    with Store(tmp_path / "s.db") as store:
        cache = StoreCapabilityCache(store)
        assert cache.get("http://127.0.0.1:11434", "qwen3:8b") == info
        assert cache.get("http://127.0.0.1:11434", "llama3:8b") is None
        assert cache.get("http://127.0.0.1:1234", "qwen3:8b") is None


def test_put_replaces_the_previous_entry(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        cache = StoreCapabilityCache(store)
        cache.put("u", "m", ModelInfo(name="m", context_length=4096))
        cache.put("u", "m", ModelInfo(name="m", context_length=8192, supports_tools=True))
        got = cache.get("u", "m")
        assert got is not None and (got.context_length, got.supports_tools) == (8192, True)


def test_a_malformed_entry_is_a_miss_not_a_crash(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        cache = StoreCapabilityCache(store)
        store.put_capabilities("u", "a", {"name": "a", "context_length": "lots"})
        store.put_capabilities("u", "b", {"context_length": 4096})
        store.put_capabilities("u", "c", {"name": "c", "supports_tools": "yes"})
        assert [cache.get("u", m) for m in "abc"] == [None, None, None]
        # An entry from an older version with fewer (or extra) fields still reads.
        store.put_capabilities("u", "d", {"name": "d", "context_length": 2048, "retired_field": 1})
        assert cache.get("u", "d") == ModelInfo(name="d", context_length=2048)


async def test_discover_asks_the_server_once_then_reads_the_store_after_a_restart(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.models = [FakeModel("qwen3:8b", context_length=32768, capabilities=["completion", "tools"])]
    provider = OllamaProvider(fake_llm.url, timeout_s=10, connect_timeout_s=2)
    try:
        with Store(tmp_path / "s.db") as store:
            first = await discover(provider, "qwen3:8b", None, StoreCapabilityCache(store))
        assert shows(fake_llm) == 1
        with Store(tmp_path / "s.db") as store:
            again = await discover(provider, "qwen3:8b", LLMConfig(context_length=8192), StoreCapabilityCache(store))
            # Config overrides apply on top of the cached entry but are not written back into it.
            assert StoreCapabilityCache(store).get(provider.base_url, "qwen3:8b") == first
    finally:
        await provider.aclose()
    assert shows(fake_llm) == 1
    assert (first.context_length, first.supports_tools, first.supports_thinking) == (32768, True, False)
    assert (again.context_length, again.supports_tools) == (8192, True)


async def test_a_llamacpp_server_restarted_with_another_window_is_noticed(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    from agent_server.llm.openai_compat import OpenAIProvider
    from tests.fakes import recorded

    fake_llm.models = recorded.fake_models()
    fake_llm.props = recorded.props()
    model = fake_llm.models[0].name
    provider = OpenAIProvider(fake_llm.url, timeout_s=10, connect_timeout_s=2)
    try:
        with Store(tmp_path / "s.db") as store:
            first = await discover(provider, model, None, StoreCapabilityCache(store))
            learned = StoreCapabilityCache(store).get(provider.base_url, model)
            assert learned is not None
            learned.details["tools_dropped"] = {"prompt_tokens": 900}  # what a session learnt about that server
            StoreCapabilityCache(store).put(provider.base_url, model, learned)
        # The same URL, restarted with a 4,096-token window.
        fake_llm.props = {**fake_llm.props, "default_generation_settings": {
            **fake_llm.props["default_generation_settings"], "n_ctx": 4096}}  # fmt: skip
        with Store(tmp_path / "s.db") as store:
            again = await discover(provider, model, None, StoreCapabilityCache(store))
            stored = StoreCapabilityCache(store).get(provider.base_url, model)
    finally:
        await provider.aclose()
    assert first.context_length == 2048
    assert again.context_length == 4096
    assert stored is not None and stored.context_length == 4096 and "tools_dropped" not in stored.details
