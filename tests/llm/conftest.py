"""Fixtures for provider tests: the fake server, and providers pointed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from agent_server.llm.ollama import OllamaProvider
from agent_server.llm.openai_compat import OpenAIProvider
from tests.fakes.fake_llm import FakeLLMServer
from tests.fakes.fixtures import fake_llm

__all__ = ["fake_llm"]


@pytest.fixture
async def ollama(fake_llm: FakeLLMServer) -> AsyncIterator[OllamaProvider]:
    provider = OllamaProvider(fake_llm.url, timeout_s=10, connect_timeout_s=2)
    yield provider
    await provider.aclose()


@pytest.fixture
async def openai(fake_llm: FakeLLMServer) -> AsyncIterator[OpenAIProvider]:
    provider = OpenAIProvider(fake_llm.url, timeout_s=10, connect_timeout_s=2)
    yield provider
    await provider.aclose()
