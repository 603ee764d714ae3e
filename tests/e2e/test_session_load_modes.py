"""`agent/session/load` answers with the session's modes (ACP's LoadSessionResponse.modes), so an editor that
resumes a session shows the mode it was left in."""

from __future__ import annotations

from pathlib import Path

from tests.acp_schema import validate
from tests.e2e.conftest import Start, llm_options, new_session
from tests.fakes.fake_llm import FakeLLMServer


async def test_load_answers_with_the_stored_mode(start_server: Start, workspace: Path, fake_llm: FakeLLMServer) -> None:
    first = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(first, workspace)
    assert await first.request("agent/session/set_mode", {"sessionId": sid, "modeId": "plan"}) == {}
    await first.close()

    second = await start_server(workspace, llm_options(fake_llm))
    loaded = await second.request("agent/session/load", {"sessionId": sid, "cwd": str(workspace), "mcpServers": []})
    validate("LoadSessionResponse", loaded)
    assert loaded["modes"]["currentModeId"] == "plan"
    assert {"code", "plan", "ask"} <= {m["id"] for m in loaded["modes"]["availableModes"]}
