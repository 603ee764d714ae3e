"""avante's wrapped prompts: the typed text is found inside `<previous_user_message>` (a `/command` runs; the repeated
history is not sent to the model again). Unit checks of the shape, then the real agent process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_server import acp
from agent_server.acp_agent.client_wrapping import unwrap
from tests.acp.ndjson_client import AcpProcess
from tests.fakes.fake_llm import FakeLLMServer, Reply


def text(t: str) -> acp.TextContent:
    return acp.TextContent(text=t)


def avante(*typed_newest_first: str) -> list[dict[str, Any]]:
    blocks = [
        {"type": "text", "text": f"<previous_user_message>{t}</previous_user_message>"} for t in typed_newest_first
    ]
    note = f"<system_context>Continuing from previous session with {len(blocks)} recent user messages</system_context>"
    return [*blocks, {"type": "text", "text": note}]


def test_only_the_exact_shape_is_unwrapped() -> None:
    picture = acp.ImageContent(data="iVBORw0KGgo=", mime_type="image/png")
    wrapped = [text("<previous_user_message>/mode plan</previous_user_message>"), picture,
               text("<previous_user_message>older</previous_user_message>"), text("<system_context>x</system_context>")]  # fmt: skip
    assert unwrap(wrapped) == [text("/mode plan"), picture]
    mentions = [text("What does <previous_user_message>x</previous_user_message> mean here?")]
    assert unwrap(mentions) == mentions
    plain = [text("hello"), text("<system_context>x</system_context>")]
    assert unwrap(plain) == plain
    recovery = [text("<previous_user_message>a</previous_user_message>"),
                text("<previous_assistant_message>b</previous_assistant_message>")]  # fmt: skip
    assert unwrap(recovery) == recovery


async def test_a_wrapped_command_runs_and_a_wrapped_prompt_is_sent_once(
    tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    env = {"AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db"), "AGENT_SERVER_INDEX__ENABLED": "false",
           "HOME": str(tmp_path)}  # fmt: skip
    proc = await AcpProcess.start(
        ["--provider", "ollama", "--base-url", fake_llm.url, "--model", "qwen3:8b"], env, tmp_path
    )
    try:
        await proc.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        sid = (await proc.request("session/new", {"cwd": str(ws), "mcpServers": []}))["sessionId"]
        fake_llm.script(Reply.text("First answer."), Reply.text("Second answer."))
        await proc.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "first question"}]})
        await proc.request("session/prompt", {"sessionId": sid, "prompt": avante("/mode plan", "first question")})
        modes = [u for u in proc.updates(sid) if u["sessionUpdate"] == "current_mode_update"]
        assert modes and modes[-1]["currentModeId"] == "plan", "the wrapped /mode command ran"
        await proc.request("session/prompt", {"sessionId": sid, "prompt": avante("second question", "first question")})
    finally:
        await proc.close()
    chats = [r.json for r in fake_llm.requests if r.path.endswith("/chat")]
    assert len(chats) == 2, "the command never reached the model"
    last_user = chats[-1]["messages"][-1]["content"]
    assert "second question" in last_user and "previous_user_message" not in last_user
    assert "first question" not in last_user, "the history the session holds is not sent again inside the prompt"
