"""The model list the pickers show and the message for a model the LLM server does not have."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import prompt_params
from tests.fakes.fake_llm import FakeLLMServer, FakeModel, Reply
from tests.lsp_client import RpcError


@pytest.fixture
def models(fake_llm: FakeLLMServer) -> FakeLLMServer:
    fake_llm.models = [
        FakeModel("qwen3:8b", context_length=32768),
        FakeModel("llama3.2:3b", context_length=8192, capabilities=["completion", "tools"]),
        FakeModel("nomic-embed-text:latest", context_length=2048, capabilities=["embedding"]),
    ]
    return fake_llm


async def test_a_wrong_model_name_says_which_models_there_are(
    start_server: Start, workspace: Path, models: FakeLLMServer
) -> None:
    options = llm_options(models)
    options["llm"]["model"] = "qwen3:8bb"
    client = await start_server(workspace, options)
    models.script(Reply(status=404, error_body={"error": "model 'qwen3:8bb' not found"}))
    sid = await new_session(client, workspace)
    with pytest.raises(RpcError) as caught:
        await client.request("agent/session/prompt", prompt_params(sid, "hello"))
    message = str(caught.value.message)
    assert "'qwen3:8bb' is not on the LLM server" in message
    assert "qwen3:8b, llama3.2:3b" in message and "nomic-embed" not in message
    assert ":AgentModel" in message


async def test_the_model_list_has_context_lengths_and_no_embedding_models(
    start_server: Start, workspace: Path, models: FakeLLMServer
) -> None:
    client = await start_server(workspace, llm_options(models))
    listed = await client.request("agent/_models/list", {})
    assert listed["current"] == "qwen3:8b"
    assert {m["name"]: m["contextLength"] for m in listed["models"]} == {"qwen3:8b": 32768, "llama3.2:3b": 8192}
