"""MCP tools through the real server: servers from ACP session/new, permission asked, results to the model."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tests.e2e.conftest import Start, llm_options
from tests.fakes.fake_llm import FakeLLMServer, Reply

STDIO_SERVER = str(Path(__file__).parents[1] / "fakes" / "mcp_stdio_server.py")


async def test_mcp_tool_from_session_new_asks_then_runs(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    client = await start_server(workspace, llm_options(fake_llm))
    asked: list[dict[str, object]] = []

    def answer(params: dict[str, object]) -> dict[str, object]:
        asked.append(params)
        return {"outcome": {"outcome": "selected", "optionId": "allow_once"}}

    client.handlers["agent/session/request_permission"] = answer
    server = {"name": "demo", "command": sys.executable, "args": [STDIO_SERVER], "env": []}
    sid = (await client.request("agent/session/new", {"cwd": str(workspace), "mcpServers": [server]}))["sessionId"]
    # Servers start in the background; the first turn must not wait for them. Prompt until the tool is offered.
    offered: list[str] = []
    for _ in range(40):
        fake_llm.script(Reply.text("ok"))
        await client.request(
            "agent/session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "add two integers"}]}
        )
        offered = [t["function"]["name"] for t in fake_llm.chat_requests()[-1].json.get("tools", [])]
        if "demo__add" in offered:
            break
        await asyncio.sleep(0.25)
    assert "demo__add" in offered and "read_file" in offered, (offered, await client.stderr_text())

    fake_llm.script(Reply.tool_call("demo__add", {"a": 2, "b": 40}), Reply.text("42"))
    result = await client.request(
        "agent/session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "add"}]}
    )
    assert result == {"stopReason": "end_turn"}
    assert asked and asked[-1]["toolCall"]["rawInput"] == {"a": 2, "b": 40}  # type: ignore[index]
    tool_message = fake_llm.chat_requests()[-1].json["messages"][-1]
    assert tool_message["role"] == "tool" and "42" in tool_message["content"]
