"""Agent profiles and modes end to end: the real server, profile files on disk, the fake LLM's request log."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests import server_zygote
from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import answer_permissions, install_apply_edit, prompt
from tests.fakes.fake_llm import FakeLLMServer, FakeModel, Reply
from tests.lsp_client import LspClient, RpcError


def offered(request: Any) -> set[str]:
    return {t["function"]["name"] for t in request.json.get("tools") or []}


def system_text(request: Any) -> str:
    return str(request.json["messages"][0]["content"])


async def set_mode(client: LspClient, sid: str, mode: str) -> None:
    assert await client.request("agent/session/set_mode", {"sessionId": sid, "modeId": mode}) == {}


async def test_new_session_lists_the_modes(server: LspClient, workspace: Path) -> None:
    result = await server.request("agent/session/new", {"cwd": str(workspace), "mcpServers": []})
    modes = result["modes"]
    assert modes["currentModeId"] == "code"
    assert [m["id"] for m in modes["availableModes"]][:5] == ["code", "ask", "plan", "task", "orchestrate"]


async def test_plan_mode_cannot_write(server: LspClient, workspace: Path, fake_llm: FakeLLMServer) -> None:
    asked = answer_permissions(server, "allow_once")
    install_apply_edit(server)
    fake_llm.script(
        Reply.tool_call("write_file", {"path": "pwned.txt", "content": "x"}),  # forged: not offered in plan mode
        Reply.tool_call("run_command", {"command": "touch pwned2.txt"}),
        Reply.text("Plan: nothing to change."),
    )
    sid = await new_session(server, workspace)
    await set_mode(server, sid, "plan")
    assert any(u.get("sessionUpdate") == "current_mode_update" for u in server.updates(sid))
    assert await prompt(server, sid, "make a plan") == "end_turn"
    first = fake_llm.chat_requests()[0]
    assert "write_file" not in offered(first) and "run_command" not in offered(first)
    assert {"read_file", "update_plan"} <= offered(first)
    assert "plan mode" in system_text(first)
    assert not (workspace / "pwned.txt").exists() and not (workspace / "pwned2.txt").exists()
    assert asked == []  # nothing was even asked about
    results = [m for m in fake_llm.chat_requests()[1].json["messages"] if m["role"] == "tool"]
    assert "unknown tool" in results[-1]["content"]


async def test_custom_profile_changes_tools_model_and_prompt(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.models = [FakeModel("qwen3:8b"), FakeModel("reviewer-model:latest")]
    agents = workspace / ".agent-server" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\ndescription: Reviews code\nmodel: reviewer-model:latest\ntools: [read_file, search_*]\n"
        "max_rounds: 3\ntemperature: 0.1\n---\nREVIEWER RULES: be terse.\n"
    )
    (workspace / "a.py").write_text("x = 1\n")
    server = await start_server(workspace, llm_options(fake_llm))
    fake_llm.script(Reply.tool_call("read_file", {"path": "a.py"}), Reply.text("Looks fine."))
    sid = await new_session(server, workspace)
    await set_mode(server, sid, "reviewer")
    assert await prompt(server, sid, "review a.py") == "end_turn"
    requests = fake_llm.chat_requests()
    assert all(r.json["model"] == "reviewer-model:latest" for r in requests)
    assert offered(requests[0]) - {"ask_question", "task_completion"} == {"read_file", "search_text"}
    assert "REVIEWER RULES: be terse." in system_text(requests[0])
    assert requests[0].json["options"]["temperature"] == 0.1
    listed = await server.request("agent/_agents/list", {"cwd": str(workspace)})
    reviewer = next(a for a in listed["agents"] if a["name"] == "reviewer")
    assert reviewer["scope"] == "workspace" and reviewer["readOnly"]

    # The mode is remembered with the session: a second server process resumes it.
    other = await start_server(workspace, llm_options(fake_llm))
    fake_llm.script(Reply.text("Still reviewing."))
    assert await prompt(other, sid, "again") == "end_turn"
    assert fake_llm.chat_requests()[-1].json["model"] == "reviewer-model:latest"


async def test_unknown_mode_is_a_clear_error(server: LspClient, workspace: Path) -> None:
    sid = await new_session(server, workspace)
    with pytest.raises(RpcError) as err:
        await server.request("agent/session/set_mode", {"sessionId": sid, "modeId": "wizard"})
    assert err.value.code == -32602 and "wizard" in err.value.message and "plan" in err.value.message


async def test_untrusted_workspace_profile_cannot_allow_commands(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    agents = workspace / ".agent-server" / "agents"
    agents.mkdir(parents=True)
    (agents / "yolo.md").write_text("---\npermissions: {run_command: allow}\n---\n")
    asked = answer_permissions(server, "reject_once")
    fake_llm.script(Reply.tool_call("run_command", {"command": "touch ran.txt"}), Reply.text("ok"))
    sid = await new_session(server, workspace)
    await set_mode(server, sid, "yolo")
    assert await prompt(server, sid, "go") == "end_turn"
    assert len(asked) == 1 and not (workspace / "ran.txt").exists()


async def test_orchestrator_plans_with_one_model_and_works_with_another(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.models = [FakeModel("qwen3:8b", context_length=4096), FakeModel("worker:latest", context_length=4096)]
    agents = workspace / ".agent-server" / "agents"
    agents.mkdir(parents=True)
    (agents / "orch.md").write_text(
        "---\nkind: orchestrate\nplanner_model: qwen3:8b\nworker_model: worker:latest\n---\n"
    )
    for name in ("a", "b", "c"):
        (workspace / f"{name}.txt").write_text(f"SECRET-{name.upper()} " * 300)
    server = await start_server(workspace, llm_options(fake_llm))
    fake_llm.script(
        Reply.text("1. Read a.txt\n2. Read b.txt\n3. Read c.txt"),
        Reply.tool_call("read_file", {"path": "a.txt"}),
        Reply.text("a.txt holds SECRET-A."),
        Reply.tool_call("read_file", {"path": "b.txt"}),
        Reply.text("b.txt holds SECRET-B."),
        Reply.tool_call("read_file", {"path": "c.txt"}),
        Reply.text("c.txt holds SECRET-C."),
        Reply.text("All three files hold secrets."),
    )
    sid = await new_session(server, workspace)
    await set_mode(server, sid, "orch")
    assert await prompt(server, sid, "what do the three files hold?") == "end_turn"
    requests = fake_llm.chat_requests()
    models = [r.json["model"] for r in requests]
    assert models == ["qwen3:8b"] + ["worker:latest"] * 6 + ["qwen3:8b"]
    num_ctx = {r.json["options"].get("num_ctx") for r in requests}
    assert len(num_ctx) == 1 and None not in num_ctx, "every request of the session sends the same num_ctx"
    # Each step starts fresh: step 2 never sees step 1's file, only its summary.
    step2 = json.dumps(requests[3].json)
    assert "Read b.txt" in step2 and "a.txt holds SECRET-A." in step2 and "SECRET-A SECRET-A" not in step2
    for r in requests:
        assert len(json.dumps(r.json["messages"])) / 3 < 4096, "every request fits a 4k window"
    plans = [u for u in server.updates(sid) if u["sessionUpdate"] == "plan"]
    assert plans[0]["entries"][0]["status"] == "pending"
    assert [e["status"] for e in plans[-1]["entries"]] == ["completed"] * 3
    steps = [u for u in server.updates(sid) if u["sessionUpdate"] == "tool_call" and u["title"].startswith("Step")]
    assert len(steps) == 3
    nested = [u for u in server.updates(sid) if u.get("_meta", {}).get("parentToolCallId") == steps[0]["toolCallId"]]
    assert nested, "the step's own tool calls name the step card as their parent"
    assert server.text(sid).endswith("All three files hold secrets.")
    synthesis = json.dumps(requests[-1].json)
    assert "SECRET-C." in synthesis


async def test_subagent_returns_its_summary(start_server: Start, workspace: Path, fake_llm: FakeLLMServer) -> None:
    agents = workspace / ".agent-server" / "agents"
    agents.mkdir(parents=True)
    (agents / "lead.md").write_text("---\ntools: [run_agent, read_file]\n---\nDelegate research.\n")
    server = await start_server(workspace, llm_options(fake_llm))
    fake_llm.script(
        Reply.tool_call("run_agent", {"agent": "ask", "task": "Find where main is defined."}),
        Reply.text("main is in app.py."),  # the subagent's answer
        Reply.text("The subagent says: main is in app.py."),
    )
    sid = await new_session(server, workspace)
    await set_mode(server, sid, "lead")
    assert await prompt(server, sid, "where is main?") == "end_turn"
    first, sub, last = fake_llm.chat_requests()
    assert "run_agent" in offered(first)
    assert "run_agent" not in offered(sub) and "write_file" not in offered(sub)  # the ask profile's tools
    assert sub.json["messages"][-1]["content"] == "Find where main is defined."
    assert "Delegate research." not in system_text(sub)
    results = [m for m in last.json["messages"] if m["role"] == "tool"]
    assert results[-1]["content"] == "main is in app.py."


def test_cli_agents_new_list_and_chat_with_agent(workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    env = {**os.environ, "AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db"), "XDG_CONFIG_HOME": str(tmp_path)}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return server_zygote.run(
            [*args],
            cwd=workspace,
            env=env,
            timeout=120,
        )

    made = cli("agents", "new", "docs", "-d", "Writes docs", "--tools", "read_file,write_file", "--prompt", "DOCS!")
    assert made.returncode == 0, made.stderr
    assert (workspace / ".agent-server" / "agents" / "docs.md").is_file()
    listed = json.loads(cli("agents", "list", "--json").stdout)
    assert {"docs", "plan"} <= {a["name"] for a in listed["agents"]}
    assert cli("agents", "new", "docs").returncode == 1  # never overwritten
    fake_llm.script(Reply.text("documented"))
    chat = cli(
        "chat", "--agent", "docs", "--provider", "ollama", "--base-url", fake_llm.url, "--model", "qwen3:8b",
        "write docs",
    )  # fmt: skip
    assert chat.returncode == 0, chat.stderr
    request = fake_llm.chat_requests()[-1]
    assert "DOCS!" in system_text(request) and offered(request) - {"ask_question", "task_completion"} == {
        "read_file",
        "write_file",
    }
    bad = cli("chat", "--agent", "nope", "--base-url", fake_llm.url, "--provider", "ollama", "hi")
    assert bad.returncode != 0 and "nope" in bad.stderr


async def test_hot_context_names_the_session_files_and_keeps_the_prefix_stable(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    server = await start_server(workspace, {**llm_options(fake_llm), "agent": {"hotContextTokens": 300}})
    fake_llm.script(
        Reply.tool_call("read_file", {"path": "a.py"}),
        Reply.text("x is 1"),
        Reply.text("still 1"),
        Reply.text("yes"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "what is x?") == "end_turn"
    assert await prompt(server, sid, "and now?") == "end_turn"
    assert await prompt(server, sid, "sure?") == "end_turn"
    second, third = fake_llm.chat_requests()[2], fake_llm.chat_requests()[3]
    user = second.json["messages"][-1]["content"]
    assert user.startswith("and now?") and "Files read in this session: a.py" in user
    assert third.json["messages"][: len(second.json["messages"])] == second.json["messages"], "prefix unchanged"
    shown = [u for u in server.updates(sid) if u["sessionUpdate"] == "user_message_chunk"]
    assert all("session-context" not in u["content"]["text"] for u in shown)


def test_cli_a_workspace_plan_replaces_the_built_in_only_once_trusted(workspace: Path, tmp_path: Path) -> None:
    env = {**os.environ, "AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db"), "XDG_CONFIG_HOME": str(tmp_path)}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return server_zygote.run([*args], cwd=workspace, env=env, timeout=120)  # fmt: skip

    agents = workspace / ".agent-server" / "agents"
    agents.mkdir(parents=True)
    (agents / "plan.md").write_text("---\ndescription: the team's plan mode\n---\nPlan our way.\n")
    before = cli("agents", "list", "--json")
    plan = next(a for a in json.loads(before.stdout)["agents"] if a["name"] == "plan")
    assert plan["scope"] == "builtin" and "would replace the builtin profile" in before.stdout + before.stderr
    trusted = cli("agents", "trust", "plan", "--workspace", str(workspace))
    assert trusted.returncode == 0 and "trusted" in trusted.stdout, trusted.stderr
    after = json.loads(cli("agents", "list", "--json").stdout)
    assert next(a for a in after["agents"] if a["name"] == "plan")["scope"] == "workspace"
