"""Fixtures for end-to-end tests: the real server as a subprocess, driven over stdio, backed by the fake LLM."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.fake_llm import FakeLLMServer
from tests.lsp_client import LspClient

Start = Callable[..., Awaitable[LspClient]]


def llm_options(fake: FakeLLMServer, provider: str = "ollama", **extra: Any) -> dict[str, Any]:
    return {"llm": {"provider": provider, "baseUrl": fake.url, "model": fake.models[0].name, **extra}}


@pytest.fixture
async def start_server(tmp_path: Path) -> AsyncIterator[Start]:
    """Start (and later stop) servers; each gets initialized on `root` with `options` as initializationOptions."""
    clients: list[LspClient] = []

    async def start(
        root: Path, options: dict[str, Any] | None = None, env: dict[str, str] | None = None, **kw: Any
    ) -> LspClient:
        env = {"AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db"), **(env or {})}
        client = await LspClient.start(env=env, cwd=tmp_path)
        clients.append(client)
        await client.initialize(root, options, **kw)
        return client

    yield start
    for client in clients:
        await client.close()


@pytest.fixture
async def server(start_server: Start, workspace: Path, fake_llm: FakeLLMServer) -> LspClient:
    return await start_server(workspace, llm_options(fake_llm))


async def new_session(client: LspClient, cwd: Path) -> str:
    result = await client.request("agent/session/new", {"cwd": str(cwd), "mcpServers": []})
    return str(result["sessionId"])
