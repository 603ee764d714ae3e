"""Issue 27 against the real llama.cpp (prebuilt xllamacpp, child process) and Qwen2.5-Coder-0.5B: the lean fixed
prompt is under 700 of the model's tokens, prompt progress streams as PromptProgress, and a saved session restored
into a restarted server is not evaluated again (while a changed history falls back to a normal evaluation)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_server.config import Settings
from agent_server.llm.base import ChatRequest, GenerationOptions
from agent_server.llm.openai_compat import OpenAIProvider, build_payload
from agent_server.llm.slot_cache import SlotCache
from agent_server.messages import Finish, Message, PromptProgress, StreamEvent
from agent_server.tools.lean import lean_specs
from agent_server.turn.prompts import system_prompt
from tests.real_llm import xllama
from tests.tools.builtin_registry import default_registry

MODEL = xllama.qwen_model()
pytestmark = pytest.mark.skipif(
    MODEL is None or not xllama.xllamacpp_available(),
    reason="needs xllamacpp and the Qwen2.5-Coder-0.5B GGUF (AGENT_TEST_GGUF)",
)


@pytest.fixture(scope="module")
def slots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("slots")


@pytest.fixture
def server(slots: Path, tmp_path: Path) -> Iterator[xllama.XLlama]:
    assert MODEL is not None
    started = xllama.start(MODEL, tmp_path / "server.log", n_ctx=4096, slot_dir=slots)
    yield started
    started.stop()


def lean_request(model: str, *turns: str) -> ChatRequest:
    system = system_prompt(Path("/home/user/project"), "chat", None, lean=True)
    messages = [Message(role="system", content=system)]
    for i, text in enumerate(turns):
        messages.append(Message(role="user" if i % 2 == 0 else "assistant", content=text))
    options = GenerationOptions(temperature=0, max_tokens=4, progress=True)
    return ChatRequest(model, messages, lean_specs(default_registry(Settings())), options)


async def collect(provider: object, request: ChatRequest) -> list[StreamEvent]:
    return [event async for event in provider.stream_chat(request)]  # type: ignore[attr-defined]


def test_lean_fixed_prompt_is_under_700_tokens(server: xllama.XLlama) -> None:
    body = build_payload(lean_request(server.model, "hi"))
    prompt = server.call("POST", "/apply-template", {"messages": body["messages"], "tools": body["tools"]})["prompt"]
    assert len(server.call("POST", "/tokenize", {"content": prompt})["tokens"]) <= 700


async def test_progress_then_saved_session_restored_after_restart(server: xllama.XLlama, slots: Path) -> None:
    provider = OpenAIProvider(server.url)
    cache = SlotCache(server.url, slots)
    first = lean_request(server.model, "Name a Python keyword.")
    events = await collect(cache.wrap(provider, "sess_a"), first)
    progress = [e for e in events if isinstance(e, PromptProgress)]
    assert progress and progress[-1].processed == progress[-1].total > 600 and progress[-1].fraction == 1.0
    assert await cache.save("sess_a")
    await cache.aclose()
    await provider.aclose()

    server.stop()  # a restarted server (and a new agent-server: a new SlotCache) for the same session
    assert MODEL is not None
    restarted = xllama.start(MODEL, server.log, n_ctx=4096, slot_dir=slots)
    try:
        provider = OpenAIProvider(restarted.url)
        cache = SlotCache(restarted.url, slots)
        longer = lean_request(restarted.model, "Name a Python keyword.", "def", "Another one?")
        finish = (await collect(cache.wrap(provider, "sess_a"), longer))[-1]
        assert isinstance(finish, Finish)
        assert cache.restored["sess_a"] > 600 and finish.usage.cached_tokens > 600
        assert finish.usage.prompt_tokens - finish.usage.cached_tokens < 100  # only the new messages evaluated

        # Another session's prompt does not start with the saved one: no restore, a normal evaluation.
        other = lean_request(restarted.model, "Something else entirely.")
        other.messages[0].content += " Reply in French."
        await cache.save("sess_a")
        fresh = SlotCache(restarted.url, slots)
        events = await collect(fresh.wrap(provider, "sess_a"), other)
        assert "sess_a" not in fresh.restored and isinstance(events[-1], Finish)
        await fresh.aclose()
        await cache.aclose()
        await provider.aclose()
    finally:
        restarted.stop()
