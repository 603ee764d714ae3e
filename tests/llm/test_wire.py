"""What requests carry for a shared server (llm/wire.py), over real HTTP to the fake server: vLLM's priority by what a
request is for (a compaction summary, embeddings, a subagent's round after the user's turn), and Retry-After read as
seconds or as an HTTP date."""

from __future__ import annotations

import email.utils
import time
from collections.abc import AsyncIterator

import pytest

from agent_server.llm._http import retry_after_s
from agent_server.llm.base import ChatRequest, Provider
from agent_server.llm.openai_compat import OpenAIProvider
from agent_server.llm.tagged import Tagged
from agent_server.llm.wire import Wire
from agent_server.messages import Message
from agent_server.turn.context_step import summarize_with
from tests.fakes.fake_llm import FakeLLMServer, Reply


@pytest.fixture
async def ranked(fake_llm: FakeLLMServer) -> AsyncIterator[OpenAIProvider]:
    provider = OpenAIProvider(fake_llm.url, timeout_s=10, connect_timeout_s=2, wire=Wire(priority=True))
    yield provider
    await provider.aclose()


async def _drain(provider: Provider, request: ChatRequest) -> None:
    async for _event in provider.stream_chat(request):
        pass


async def test_each_kind_of_request_carries_its_priority(fake_llm: FakeLLMServer, ranked: OpenAIProvider) -> None:
    fake_llm.default_reply = Reply.text("short")
    model = fake_llm.models[0].name
    await _drain(ranked, ChatRequest(model=model, messages=[Message(role="user", content="hi")]))
    await _drain(
        Tagged(ranked, purpose="subagent"), ChatRequest(model=model, messages=[Message(role="user", content="x")])
    )
    assert await summarize_with(ranked, model, "a long history", 50, timeout_s=10) == "short"
    await ranked.embed(model, ["some code"])
    chats = [r.json["priority"] for r in fake_llm.chat_requests()]
    embedded = [r.json["priority"] for r in fake_llm.requests if r.path == "/v1/embeddings"]
    assert (chats, embedded) == ([0, 1, 2], [3])


async def test_no_priority_field_unless_asked(fake_llm: FakeLLMServer, openai: OpenAIProvider) -> None:
    fake_llm.default_reply = Reply.text("ok")
    await _drain(openai, ChatRequest(model=fake_llm.models[0].name, messages=[Message(role="user", content="hi")]))
    await openai.embed(fake_llm.models[0].name, ["x"])
    assert all("priority" not in (r.json or {}) for r in fake_llm.requests)


def test_retry_after_is_read_as_seconds_or_a_date() -> None:
    assert retry_after_s("12") == 12.0 and retry_after_s(" 0.5 ") == 0.5
    in_a_minute = email.utils.formatdate(time.time() + 60, usegmt=True)
    assert 55 <= (retry_after_s(in_a_minute) or 0) <= 61
    assert retry_after_s(email.utils.formatdate(time.time() - 60, usegmt=True)) == 0.0
    assert retry_after_s("soon") is None and retry_after_s(None) is None and retry_after_s("nan") is None
