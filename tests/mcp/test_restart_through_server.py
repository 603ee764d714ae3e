"""An MCP server crash seen through the real agent server: the next call waits for the restart, one warning."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from tests.e2e.conftest import Start, llm_options, start_server  # noqa: F401  (fixture)
from tests.e2e.helpers import answer_permissions, prompt, tool_results
from tests.fakes.fake_llm import FakeLLMServer, Reply

STDIO_SERVER = str(Path(__file__).parents[1] / "fakes" / "mcp_stdio_server.py")


async def test_a_call_right_after_a_crash_waits_for_the_restart(
    start_server: Start,  # noqa: F811
    workspace: Path,
    fake_llm: FakeLLMServer,
) -> None:
    client = await start_server(workspace, llm_options(fake_llm))
    answer_permissions(client, "allow_once")
    server = {"name": "fake", "command": sys.executable, "args": [STDIO_SERVER], "env": []}
    sid = (await client.request("agent/session/new", {"cwd": str(workspace), "mcpServers": [server]}))["sessionId"]
    for _ in range(80):  # servers start in the background: prompt until the tools are offered
        fake_llm.script(Reply.text("ok"))
        await prompt(client, sid, "hello")
        offered = [t["function"]["name"] for t in fake_llm.chat_requests()[-1].json.get("tools", [])]
        if "fake__whoami" in offered:
            break
        await asyncio.sleep(0.25)
    fake_llm.script(Reply.tool_call("fake__whoami"), Reply.text("noted"))
    await prompt(client, sid, "who are you?")
    first_pid = tool_results(fake_llm.chat_requests()[-1].json["messages"])[-1]
    assert first_pid.strip().isdigit(), first_pid

    fake_llm.script(Reply.tool_call("fake__crash"), Reply.text("it crashed"))
    await prompt(client, sid, "crash it")
    crashed = tool_results(fake_llm.chat_requests()[-1].json["messages"])[-1]
    assert "crashed" in crashed and "restarted" in crashed

    # At once, a new turn calls the same server while it restarts (the backoff alone is 0.25 s).
    fake_llm.script(Reply.tool_call("fake__whoami"), Reply.text("back"))
    assert await prompt(client, sid, "who are you now?") == "end_turn"
    second_pid = tool_results(fake_llm.chat_requests()[-1].json["messages"])[-1]
    assert second_pid.strip().isdigit(), second_pid  # not "unknown tool", not "not available"
    assert second_pid != first_pid

    shown = [
        p.get("message", "")
        for _, m, p in client.notifications
        if m in ("window/logMessage", "window/showMessage") and "restarting" in str(p.get("message", ""))
    ]
    assert len(shown) == 1, shown
