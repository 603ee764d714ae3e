"""Custom slash commands through the real server: prompt files in every peer's folder and MCP prompts, listed for
the editors (`agent/_commands/list`) and ACP (`available_commands_update`), expanded into what reaches the model
(fake LLM request log), with the command's mode and model for that turn only."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests import server_zygote
from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import prompt, prompt_params, sent_messages
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.lsp_client import RpcError

STDIO_SERVER = str(Path(__file__).parents[1] / "fakes" / "mcp_stdio_server.py")


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def setup_commands(workspace: Path) -> None:
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "agent-server" / "commands"
    write(user, "fix.md", "---\ndescription: Fix with the small model\nmodel: small:1b\n---\nFix $ARGUMENTS now.")
    write(user, "review.md", "user review, replaced by the workspace's")
    write(
        workspace,
        ".agent-server/commands/review.md",
        "---\ndescription: Review a file\nargument-hint: <file> [focus]\n---\nReview $1 looking at $2. All: $ARGUMENTS",
    )
    write(workspace, ".claude/commands/frontend/test.md", "# Write the frontend tests\nWrite tests for the UI.")
    write(
        workspace,
        ".github/prompts/explain.prompt.md",
        "---\nmode: ask\ndescription: Explain a topic\n---\nExplain ${input:topic:what to explain} simply.",
    )
    write(workspace, ".agent-server/commands/broken.md", "---\nmodel: [1, 2\n---\nbroken frontmatter is text")


async def test_prompt_files_are_listed_and_expanded_for_the_model(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    setup_commands(workspace)
    server = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(server, workspace)
    listed = {c["name"]: c for c in (await server.request("agent/_commands/list", {"sessionId": sid}))["commands"]}
    assert set(listed) >= {"fix", "review", "frontend:test", "explain", "broken"}
    assert listed["review"] == {
        "name": "review",
        "description": "Review a file",
        "hint": "<file> [focus]",
        "source": ".agent-server/commands/review.md",
    }
    assert listed["frontend:test"]["description"] == "Write the frontend tests"
    assert listed["explain"]["hint"] == "<topic>" and listed["fix"]["source"].endswith("commands/fix.md")

    fake_llm.script(Reply.text("reviewed"), Reply.text("fixed"), Reply.text("explained"), Reply.text("plain"))
    assert await prompt(server, sid, "/review src/app.py 'error handling'") == "end_turn"
    assert sent_messages(fake_llm, 0)[-1]["content"] == (
        "Review src/app.py looking at error handling. All: src/app.py 'error handling'"
    )
    assert await prompt(server, sid, "/fix the failing test") == "end_turn"
    second = fake_llm.chat_requests()[1].json
    assert second["messages"][-1]["content"] == "Fix the failing test now."
    assert second["model"] == "small:1b", "the command's model, for its turn"
    assert await prompt(server, sid, "/explain closures") == "end_turn"
    third = fake_llm.chat_requests()[2].json
    assert third["messages"][-1]["content"] == "Explain closures simply."
    offered = {t["function"]["name"] for t in third.get("tools", [])}
    assert offered and "write_file" not in offered and "run_command" not in offered, "mode: ask for this turn"
    assert await prompt(server, sid, "/nosuch stays text") == "end_turn"
    fourth = fake_llm.chat_requests()[3].json
    assert fourth["messages"][-1]["content"] == "/nosuch stays text"
    assert fourth["model"] == fake_llm.models[0].name and "write_file" in {
        t["function"]["name"] for t in fourth["tools"]
    }, "the next turn is back to the session's own model and mode"


async def test_mcp_prompts_are_commands_too(start_server: Start, workspace: Path, fake_llm: FakeLLMServer) -> None:
    server = await start_server(workspace, llm_options(fake_llm))
    spec = {"name": "gh", "command": sys.executable, "args": [STDIO_SERVER], "env": []}
    sid = (await server.request("agent/session/new", {"cwd": str(workspace), "mcpServers": [spec]}))["sessionId"]
    listed: dict[str, Any] = {}
    for _ in range(100):  # the MCP server starts in the background
        listed = {c["name"]: c for c in (await server.request("agent/_commands/list", {"sessionId": sid}))["commands"]}
        if "mcp.gh.review_pr" in listed:
            break
        await asyncio.sleep(0.1)
    command = listed["mcp.gh.review_pr"]
    assert command["hint"] == "<number> [focus]" and command["source"] == "mcp:gh"
    assert command["description"] == "Review a pull request by number."
    fake_llm.script(Reply.text("ok"))
    assert await prompt(server, sid, "/mcp.gh.review_pr 42 focus=security") == "end_turn"
    assert sent_messages(fake_llm, 0)[-1]["content"] == (
        "Review pull request #42 with a focus on security. (from the MCP prompt)"
    )
    # A prompt the MCP server refuses (a required argument missing) is a clear error; the session goes on.
    with pytest.raises(RpcError, match=r"/mcp\.gh\.review_pr: the MCP prompt failed"):
        await server.request("agent/session/prompt", prompt_params(sid, "/mcp.gh.review_pr"))
    fake_llm.script(Reply.text("still here"))
    assert await prompt(server, sid, "hello") == "end_turn"
    assert len(fake_llm.chat_requests()) == 2


def test_the_terminal_runs_and_lists_commands(workspace: Path, fake_llm: FakeLLMServer) -> None:

    setup_commands(workspace)
    base = ["chat", "-w", str(workspace), "--provider", "ollama"]
    base += ["--base-url", fake_llm.url, "--model", fake_llm.models[0].name]
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "300"}
    fake_llm.script(Reply.text("reviewed"))
    proc = server_zygote.run([*base, "/review a.py speed"], env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert fake_llm.chat_requests()[0].json["messages"][-1]["content"].startswith("Review a.py looking at speed.")
    repl = server_zygote.run(base, input="/help\n", env=env, timeout=60)
    assert "/review <file> [focus]: Review a file (.agent-server/commands/review.md)" in repl.stderr, repl.stderr
    assert "/explain <topic>: Explain a topic" in repl.stderr
