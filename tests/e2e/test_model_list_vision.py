"""The model list marks the models that see pictures (issue 42: the VS Code pickers did not say which ones do)."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import Start, llm_options
from tests.fakes.fake_llm import FakeLLMServer, FakeModel


async def test_the_model_list_says_which_models_see_pictures(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.models = [
        FakeModel("qwen2.5vl:7b", capabilities=["completion", "tools", "vision"]),
        FakeModel("qwen3:8b", capabilities=["completion", "tools"]),
    ]
    client = await start_server(workspace, llm_options(fake_llm))
    listed = await client.request("agent/_models/list", {})
    assert {m["name"]: m["vision"] for m in listed["models"]} == {"qwen2.5vl:7b": True, "qwen3:8b": False}
