"""Configuration errors through the real server: each layer and each key fails alone, with a notice.

In every case the server still initializes, the user sees which key was wrong (window/showMessage), and the good
settings still apply: the editor's model name is the one the fake LLM is asked for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from agent_server.config import user_config_path
from tests.e2e.conftest import new_session
from tests.e2e.helpers import prompt
from tests.fakes.fake_llm import FakeLLMServer, FakeModel, Reply
from tests.lsp_client import LspClient

CHOSEN = "chosen-model:3b"
Launch = Callable[..., Awaitable[LspClient]]


@pytest.fixture
def two_models(fake_llm: FakeLLMServer) -> FakeLLMServer:
    """The default would be the first listed model: only the editor's setting picks the second."""
    fake_llm.models = [FakeModel("first-listed:1b"), FakeModel(CHOSEN)]
    return fake_llm


def editor_options(fake: FakeLLMServer, **llm: Any) -> dict[str, Any]:
    return {"llm": {"provider": "ollama", "baseUrl": fake.url, "model": CHOSEN, **llm}}


@pytest.fixture
async def launch(tmp_path: Path) -> AsyncIterator[Launch]:
    clients: list[LspClient] = []

    async def start(env: dict[str, str] | None = None) -> LspClient:
        """A server process, not yet initialized (each test initializes it its own way)."""
        full_env = {"AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db"), **(env or {})}
        client = await LspClient.start(env=full_env, cwd=tmp_path)
        clients.append(client)
        return client

    yield start
    for client in clients:
        await client.close()


def messages(client: LspClient) -> list[str]:
    return [p["message"] for _, m, p in client.notifications if m == "window/showMessage"]


async def initialize_and_chat(client: LspClient, root: Path, options: dict[str, Any], fake: FakeLLMServer) -> str:
    """initialize must succeed; then a whole turn runs; returns the model the fake LLM was asked for."""
    result = await client.initialize(root, options)
    assert "capabilities" in result
    fake.script(Reply.text("still working"))
    sid = await new_session(client, root)
    assert await prompt(client, sid, "hello") == "end_turn"
    assert client.text(sid) == "still working"
    return str(fake.chat_requests()[-1].json["model"])


async def test_a_broken_user_file(launch: Launch, workspace: Path, two_models: FakeLLMServer) -> None:
    user = user_config_path()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text("[[[")
    client = await launch()
    assert await initialize_and_chat(client, workspace, editor_options(two_models), two_models) == CHOSEN
    await client.wait_for(lambda: any(str(user) in m for m in messages(client)))
    notice = next(m for m in messages(client) if str(user) in m)
    assert "TOML" in notice and "Traceback" not in notice


async def test_a_bad_environment_variable(launch: Launch, workspace: Path, two_models: FakeLLMServer) -> None:
    client = await launch(env={"AGENT_SERVER_AGENT__MAX_ROUNDS": "lots"})
    assert await initialize_and_chat(client, workspace, editor_options(two_models), two_models) == CHOSEN
    await client.wait_for(lambda: any("AGENT_SERVER_AGENT__MAX_ROUNDS" in m for m in messages(client)))
    notice = next(m for m in messages(client) if "AGENT_SERVER_AGENT__MAX_ROUNDS" in m)
    assert "agent.max_rounds" in notice and "'lots'" in notice and "integer" in notice


async def test_a_bad_workspace_file_keeps_the_editor_settings(
    launch: Launch, workspace: Path, two_models: FakeLLMServer
) -> None:
    config = workspace / ".agent-server.toml"
    config.write_text('[llm\nmodel = "workspace-model"\n')
    client = await launch()
    assert await initialize_and_chat(client, workspace, editor_options(two_models), two_models) == CHOSEN
    await client.wait_for(lambda: any(str(config) in m for m in messages(client)))


async def test_one_bad_key_among_good_editor_settings(
    launch: Launch, workspace: Path, two_models: FakeLLMServer
) -> None:
    options = {
        **editor_options(two_models, maxTokens="plenty", contextLength=10),
        "agent": {"maxRounds": 2},
        "tools": {"policy": {"write_fiel": "deny"}},
    }
    client = await launch()
    assert await initialize_and_chat(client, workspace, options, two_models) == CHOSEN
    await client.wait_for(lambda: len(messages(client)) >= 3)
    text = "\n".join(messages(client))
    assert "llm.max_tokens" in text and "'plenty'" in text
    assert "llm.context_length" in text and "512" in text  # an absurd window is refused with its bound
    assert "tools.policy.write_fiel" in text and "did you mean 'write_file'" in text
    assert "llm.model" not in text and "agent.max_rounds" not in text  # the good keys were not touched
    # The good keys apply: the editor's max_rounds of 2 ends a tool loop after two rounds.
    two_models.script(*[Reply.tool_call("list_directory", {"path": "."}) for _ in range(5)])
    sid = await new_session(client, workspace)
    before = len(two_models.chat_requests())
    assert await prompt(client, sid, "loop") == "max_turn_requests"
    assert len(two_models.chat_requests()) - before == 2


async def test_a_bad_key_in_workspace_configuration_keeps_the_rest(
    launch: Launch, workspace: Path, two_models: FakeLLMServer
) -> None:
    client = await launch()
    pulled = {"llm": {"model": CHOSEN, "temperature": "warm"}}
    client.handlers["workspace/configuration"] = lambda params: [pulled]
    caps = {"workspace": {"configuration": True}, "window": {"showMessage": {}}}
    await client.initialize(workspace, editor_options(two_models, model="first-listed:1b"), capabilities=caps)
    await client.wait_for(lambda: any("llm.temperature" in m for m in messages(client)))
    two_models.script(Reply.text("ok"))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "hi") == "end_turn"
    assert two_models.chat_requests()[-1].json["model"] == CHOSEN


async def test_a_store_path_that_cannot_be_opened(launch: Launch, workspace: Path, two_models: FakeLLMServer) -> None:
    client = await launch(env={"AGENT_SERVER_STORE__PATH": "/proc/no-such-dir/agent.db"})
    assert await initialize_and_chat(client, workspace, editor_options(two_models), two_models) == CHOSEN
    await client.wait_for(lambda: any("store.path" in m for m in messages(client)))
    notice = next(m for m in messages(client) if "store.path" in m)
    assert "/proc/no-such-dir/agent.db" in notice and "default store" in notice


def test_doctor_lists_the_configuration_problems(workspace: Path, fake_llm: FakeLLMServer) -> None:
    (workspace / ".agent-server.toml").write_text('[tools.policy]\nwrite_fiel = "deny"\n')
    proc = subprocess.run(
        [sys.executable, "-m", "agent_server", "doctor", "--json", "-w", str(workspace),
         "--provider", "ollama", "--base-url", fake_llm.url, "--model", fake_llm.models[0].name],
        capture_output=True, text=True, timeout=60, env={**os.environ, "AGENT_SERVER_LLM__RETRIES": "0"},
    )  # fmt: skip
    report = json.loads(proc.stdout)
    problems = "\n".join(report["problems"])
    assert "llm.retries" in problems and "AGENT_SERVER_LLM__RETRIES" in problems
    assert "tools.policy.write_fiel" in problems and "did you mean 'write_file'" in problems
    assert proc.returncode == 1 and report["models"]  # the rest of the diagnosis still ran
