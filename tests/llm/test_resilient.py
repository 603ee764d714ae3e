"""Retries before the first event, never on 4xx; the fallback chain; auto-detection and endpoint resolution."""

from __future__ import annotations

import logging

import httpx
import pytest

from agent_server.config import build
from agent_server.errors import LLMConnectionError, LLMError, LLMHTTPError
from agent_server.llm.base import ModelInfo
from agent_server.llm.capabilities import MemoryCapabilityCache, discover
from agent_server.llm.ollama import OllamaProvider
from agent_server.llm.openai_compat import OpenAIProvider
from agent_server.llm.registry import autodetect, open_provider, resolve_endpoint
from agent_server.llm.resilient import FallbackProvider, RetryingProvider
from tests.fakes.fake_llm import Delay, FakeLLMServer, FakeModel, Reply, StreamError, Text
from tests.llm.helpers import request, run


async def no_sleep(_: float) -> None:
    return None


async def test_two_503_then_success(fake_llm: FakeLLMServer, caplog: pytest.LogCaptureFixture) -> None:
    busy = "server busy, please try again.  maximum pending requests exceeded"
    fake_llm.script(Reply.ollama_error(503, busy), Reply.ollama_error(503, busy), Reply.text("finally"))
    provider = RetryingProvider(OllamaProvider(fake_llm.url), tries=3, sleep=no_sleep)
    with caplog.at_level(logging.WARNING):
        assert (await run(provider)).text == "finally"
    assert len(fake_llm.chat_requests()) == 3
    assert sum("retrying" in r.message for r in caplog.records) == 2
    await provider.aclose()


async def test_gives_up_after_the_last_try(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(*[Reply.llamacpp_error(503, "Loading model", "unavailable_error")] * 3)
    provider = RetryingProvider(OpenAIProvider(fake_llm.url), tries=3, sleep=no_sleep)
    with pytest.raises(LLMHTTPError, match="Loading model"):
        await run(provider)
    assert len(fake_llm.chat_requests()) == 3


async def test_4xx_is_never_retried(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.ollama_error(404, "model 'x' not found"), Reply.text("should not be used"))
    provider = RetryingProvider(OllamaProvider(fake_llm.url), sleep=no_sleep)
    with pytest.raises(LLMHTTPError):
        await run(provider)
    assert len(fake_llm.chat_requests()) == 1


async def test_no_retry_after_the_first_event(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply(steps=[Text("half"), StreamError("boom")]), Reply.text("again"))
    provider = RetryingProvider(OllamaProvider(fake_llm.url), sleep=no_sleep)
    with pytest.raises(LLMError, match="boom"):
        await run(provider)
    assert len(fake_llm.chat_requests()) == 1


async def test_connection_refused_is_retried_then_named() -> None:
    slept: list[float] = []

    async def record(delay: float) -> None:
        slept.append(delay)

    provider = RetryingProvider(OllamaProvider("http://127.0.0.1:9"), tries=3, base_delay=0.5, sleep=record)
    with pytest.raises(LLMConnectionError, match=r"127\.0\.0\.1:9"):
        await run(provider)
    assert len(slept) == 2 and 0.25 <= slept[0] <= 0.5 and 0.5 <= slept[1] <= 1.0


async def test_backoff_is_cancellable(fake_llm: FakeLLMServer) -> None:
    import asyncio

    fake_llm.script(Reply.ollama_error(503, "busy"), Reply.text("x"))
    provider = RetryingProvider(OllamaProvider(fake_llm.url), base_delay=30)
    task = asyncio.ensure_future(run(provider))
    await asyncio.to_thread(fake_llm.wait_for_requests, 1)
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(fake_llm.chat_requests()) == 1


async def test_fallback_chain_uses_the_next_endpoint(fake_llm: FakeLLMServer) -> None:
    dead = OllamaProvider("http://127.0.0.1:9")
    chain = FallbackProvider([(dead, "big"), (OpenAIProvider(fake_llm.url), "small")])
    fake_llm.script(Reply.text("from fallback"))
    assert (await run(chain, request())).text == "from fallback"
    assert fake_llm.chat_requests()[0].json["model"] == "small"
    await chain.aclose()


async def test_fallback_chain_reports_every_failure(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.ollama_error(404, "model 'small' not found"))
    chain = FallbackProvider([(OllamaProvider("http://127.0.0.1:9"), "big"), (OllamaProvider(fake_llm.url), "small")])
    with pytest.raises(LLMError) as info:
        await run(chain)
    text = str(info.value)
    assert "127.0.0.1:9" in text and "'big'" in text and "model 'small' not found" in text
    assert "Traceback" not in text
    await chain.aclose()


async def test_autodetect_prefers_ollama_then_lmstudio(fake_llm: FakeLLMServer) -> None:
    with FakeLLMServer() as lmstudio:
        lmstudio.flavor = "openai"
        async with httpx.AsyncClient() as client:
            assert await autodetect(client, fake_llm.url, lmstudio.url) == ("ollama", fake_llm.url)
            assert await autodetect(client, "http://127.0.0.1:9", lmstudio.url) == ("openai", lmstudio.url)
            assert await autodetect(client, lmstudio.url, "http://127.0.0.1:9") is None  # /api/version is 404


async def test_resolve_endpoint_picks_the_first_listed_model(fake_llm: FakeLLMServer) -> None:
    fake_llm.models = [FakeModel("llama3.2:3b"), FakeModel("qwen3:8b")]
    name, url, model = await resolve_endpoint(build(), ollama_url=fake_llm.url, lmstudio_url="http://127.0.0.1:9")
    assert (name, url, model) == ("ollama", fake_llm.url, "llama3.2:3b")
    settings = build({"llm": {"provider": "openai", "baseUrl": fake_llm.url + "/v1", "model": "qwen3:8b"}})
    assert await resolve_endpoint(settings) == ("openai", fake_llm.url + "/v1", "qwen3:8b")


async def test_resolve_endpoint_names_both_urls_when_nothing_answers() -> None:
    with pytest.raises(LLMConnectionError) as info:
        await resolve_endpoint(build(), ollama_url="http://127.0.0.1:9", lmstudio_url="http://127.0.0.1:7")
    assert "127.0.0.1:9" in str(info.value) and "127.0.0.1:7" in str(info.value)


async def test_open_provider_from_settings(fake_llm: FakeLLMServer) -> None:
    fake_llm.models = [FakeModel("qwen3:8b", context_length=40960)]
    settings = build(
        {"llm": {"provider": "ollama", "baseUrl": fake_llm.url, "model": "qwen3:8b", "fallbacks": [{"model": "tiny"}]}}
    )
    opened, model, info = await open_provider(settings, MemoryCapabilityCache())
    assert isinstance(opened, FallbackProvider) and opened.name == "ollama"
    assert model == "qwen3:8b" and info is not None and info.context_length == 40960 and info.supports_tools
    assert (await run(opened)).text == "ok"
    await opened.aclose()


async def test_capabilities_cached_with_overrides(fake_llm: FakeLLMServer) -> None:
    provider = OllamaProvider(fake_llm.url)
    cache = MemoryCapabilityCache()
    llm = build({"llm": {"contextLength": 16384, "toolMode": "prompt"}}).llm
    first = await discover(provider, "qwen3:8b", llm, cache)
    assert (first.context_length, first.supports_tools) == (16384, False)
    again = await discover(provider, "qwen3:8b", None, cache)
    assert again.context_length == 32768 and again.supports_tools is True  # the cache keeps what the server said
    assert len([r for r in fake_llm.requests if r.path == "/api/show"]) == 1
    unknown = await discover(OllamaProvider("http://127.0.0.1:9"), "m", None, cache)
    assert unknown == ModelInfo(name="m")
    await provider.aclose()


async def test_cancelled_consumer_closes_the_wrapped_stream(fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply(steps=[Text("a"), Delay(0.05)] * 100))
    provider = FallbackProvider([(RetryingProvider(OllamaProvider(fake_llm.url)), "m")])
    stream = provider.stream_chat(request())
    await anext(stream)
    await stream.aclose()  # type: ignore[attr-defined]
    assert fake_llm.chat_requests()[0].wait_done(5) and fake_llm.chat_requests()[0].disconnected
