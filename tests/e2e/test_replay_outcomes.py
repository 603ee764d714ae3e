"""A resumed session shows each call as it ended, through the real server: the outcome the tool reported (failed,
rejected, completed) is recorded with the result and replayed as it was shown live, whatever its text begins with."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Start, llm_options
from tests.e2e.helpers import answer_permissions, final_tool_updates, prompt, update_text
from tests.e2e.test_hooks import hook_command, toml_hooks, user_config
from tests.fakes.fake_llm import FakeLLMServer, FakeToolCall, Reply, ToolCalls
from tests.lsp_client import LspClient

STDIO_SERVER = str(Path(__file__).parents[1] / "fakes" / "mcp_stdio_server.py")
LOG_LINE = "Error: 3 retries in the last hour, all recovered"  # an MCP tool's answer, quoting a log: no failure


async def session_with_echo(client: LspClient, workspace: Path, fake: FakeLLMServer) -> str:
    """A session whose MCP server offers `demo__echo` (servers start in the background: prompt until it is)."""
    server = {"name": "demo", "command": sys.executable, "args": [STDIO_SERVER], "env": []}
    sid = str((await client.request("agent/session/new", {"cwd": str(workspace), "mcpServers": [server]}))["sessionId"])
    for _ in range(40):
        fake.script(Reply.text("ok"))
        await prompt(client, sid, "hello")
        if "demo__echo" in [t["function"]["name"] for t in fake.chat_requests()[-1].json.get("tools", [])]:
            return sid
        await asyncio.sleep(0.25)
    raise AssertionError(f"the MCP server never offered its tools: {await client.stderr_text()}")


def outcomes(client: LspClient, sid: str) -> dict[str, tuple[str, Any, str]]:
    """Each call's final card: (status, its `_meta`, its text)."""
    return {u["toolCallId"]: (u["status"], u.get("_meta"), update_text(u)) for u in final_tool_updates(client, sid)}


async def test_a_replay_shows_each_call_as_it_ended_not_as_its_text_begins(
    start_server: Start, workspace: Path, tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "keep.txt").write_text("keep")
    user_config(toml_hooks("PreToolUse", hook_command(tmp_path, tmp_path / "hook.log", "block-rm"), "run_command"))
    first = await start_server(workspace, llm_options(fake_llm))
    answer_permissions(first, "allow_once")
    sid = await session_with_echo(first, workspace, fake_llm)
    calls = [
        FakeToolCall("run_command", {"command": "exit 3"}, id="failing"),  # "Exit code: 3": failed, not "Error"
        FakeToolCall("run_command", {"command": "rm keep.txt"}, id="blocked"),  # a hook's no: rejected by policy
        FakeToolCall("demo__echo", {"text": LOG_LINE}, id="quoting"),  # starts with "Error:" and succeeded
    ]
    fake_llm.script(Reply(steps=[ToolCalls(calls)]), Reply.text("done"))
    assert await prompt(first, sid, "check the service") == "end_turn"
    live = outcomes(first, sid)
    assert live["failing"][0] == "failed" and live["failing"][2].startswith("Exit code: 3")
    assert live["blocked"][0] == "failed" and live["blocked"][1]["rejected"]["by"] == "policy"
    assert "a hook blocked it" in live["blocked"][1]["rejected"]["reason"]
    assert live["quoting"][0] == "completed" and live["quoting"][2].startswith(LOG_LINE)
    assert (workspace / "keep.txt").exists()
    await first.close()

    second = await start_server(workspace, llm_options(fake_llm))
    await second.request("agent/session/load", {"sessionId": sid, "cwd": str(workspace), "mcpServers": []})
    replayed = outcomes(second, sid)
    for call in calls:
        assert call.id is not None
        assert replayed[call.id] == live[call.id], call.id
