"""Pytest fixtures for the fake LLM server; import them in a conftest (`from tests.fakes.fixtures import fake_llm`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.fake_llm import FakeLLMServer


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    """A started fake LLM server (Ollama + OpenAI routes) on a free loopback port, stopped after the test."""
    with FakeLLMServer() as fake:
        yield fake
