"""MCP resources as mentions through the real server and a real MCP server: listed with their templates for the
editors, read through the MCP session when a prompt mentions them (`@server:uri`, or a resource_link), and what
the model got is in the fake LLM's request log."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Start, llm_options
from tests.e2e.helpers import sent_messages
from tests.fakes.fake_llm import FakeLLMServer, Reply

STDIO_SERVER = str(Path(__file__).parents[1] / "fakes" / "mcp_stdio_server.py")


async def test_resources_are_listed_and_mentions_are_read_through_mcp(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    server = await start_server(workspace, llm_options(fake_llm))
    spec = {"name": "docs", "command": sys.executable, "args": [STDIO_SERVER], "env": []}
    sid = (await server.request("agent/session/new", {"cwd": str(workspace), "mcpServers": [spec]}))["sessionId"]
    listed: dict[str, Any] = {}
    for _ in range(100):  # the MCP server starts in the background
        found = (await server.request("agent/_resources/list", {"sessionId": sid}))["resources"]
        listed = {r["mention"]: r for r in found}
        if listed:
            break
        await asyncio.sleep(0.1)
    readme = listed["docs:docs://readme"]
    assert readme["name"] == "readme" and readme["description"] == "The project's readme." and not readme["template"]
    weather = listed["docs:weather://{city}/current"]
    assert weather["template"] and weather["arguments"] == ["city"]

    text = "Compare @docs:docs://readme, @docs:weather://Paris/current. Also @docs:weather://{city}/current and @x:y."
    blocks = [{"type": "text", "text": text}, {"type": "resource_link", "uri": "docs://readme", "name": "readme"}]
    fake_llm.script(Reply.text("ok"))
    result = await server.request("agent/session/prompt", {"sessionId": sid, "prompt": blocks})
    assert result["stopReason"] == "end_turn"
    content = sent_messages(fake_llm, 0)[-1]["content"]
    assert content.startswith(text), "what the user typed stays as typed"
    assert content.count("The readme from the MCP server (resource R9).") == 2, "the mention and the link"
    assert "From `docs:docs://readme`:" in content
    assert "Weather in Paris: sunny (template T4)." in content
    assert "could not read the MCP resource @docs:weather://{city}/current: fill in {city}" in content
    assert "@x:y" in content and "could not read the MCP resource @x" not in content, "not a server: plain text"
