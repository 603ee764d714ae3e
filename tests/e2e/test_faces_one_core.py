"""The three faces start one core: the same settings give the same store, trust decision, policy and MCP servers
whether the user came through an editor (LSP), an ACP client or the terminal. Each face is the real process,
given the same command-line flags, environment and workspace file, and backed by the fake LLM server."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_server import trust
from tests import server_zygote
from tests.acp.ndjson_client import AcpProcess
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.lsp_client import LspClient

FACES = ["lsp", "acp", "terminal"]
NOT_SQLITE = b"this is a text file, not a SQLite database\n" * 200


def llm_flags(fake: FakeLLMServer) -> list[str]:
    return ["--provider", "ollama", "--base-url", fake.url, "--model", fake.models[0].name]


def workspace_config(marker: Path) -> str:
    """A workspace file whose run_command policy and MCP program wait for trust; the program leaves a marker."""
    program = f"open({str(marker)!r}, 'w').write('the workspace started me')"
    return (
        '[tools.policy]\nrun_command = "allow"\n\n'
        f'[mcpServers.helper]\ncommand = {json.dumps(sys.executable)}\nargs = ["-c", {json.dumps(program)}]\n'
    )


async def wait_until(condition: Callable[[], bool], what: str) -> None:
    """A condition that holds arrives in well under a second; the bound (30 s on a loaded 2-core machine) decides
    only how long a failure takes to show."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while not condition():
        assert loop.time() < deadline, f"not seen in time: {what}"
        await asyncio.sleep(0.05)


def run_chat(args: list[str], env: dict[str, str], cwd: Path, stdin: Any = subprocess.DEVNULL) -> Any:
    return server_zygote.run(
        ["chat", *args],
        timeout=120, stdin=stdin, cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", **env},
    )  # fmt: skip


def stored_sessions(workspace: Path, cwd: Path) -> str:
    """`agent-server sessions list` on the default store (no store.path given)."""
    listed = server_zygote.run(
        ["sessions", "list", "--json", "--cwd", str(workspace)],
        timeout=60, cwd=cwd,
    )  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    return listed.stdout


def prompt_params(session_id: str, text: str) -> dict[str, Any]:
    return {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}


# --- a store that cannot be opened ----------------------------------------------------------------------------


async def _turn_on_a_broken_store(face: str, fake: FakeLLMServer, ws: Path, env: dict[str, str]) -> tuple[str, str]:
    """One turn through `face`; returns (what the user was told, the session id)."""
    if face == "terminal":
        proc = run_chat([*llm_flags(fake), "-w", str(ws), "--output-format", "stream-json", "hello"], env, ws.parent)
        assert proc.returncode == 0, proc.stderr
        events = [json.loads(line) for line in proc.stdout.splitlines()]
        assert events[-1]["text"] == "still working"
        return proc.stderr, str(events[0]["sessionId"])
    if face == "lsp":
        lsp = await LspClient.start(llm_flags(fake), env=env, cwd=ws.parent)
        try:
            await lsp.initialize(ws)
            sid = (await lsp.request("agent/session/new", {"cwd": str(ws), "mcpServers": []}))["sessionId"]
            answer = await lsp.request("agent/session/prompt", prompt_params(sid, "hello"))
            assert answer == {"stopReason": "end_turn"} and lsp.text(sid) == "still working"
            shown = [p["message"] for _, m, p in lsp.notifications if m == "window/showMessage"]
        finally:
            await lsp.close()
        return "\n".join(shown), str(sid)
    acp = await AcpProcess.start(llm_flags(fake), env, ws.parent)
    try:
        await acp.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        sid = (await acp.request("session/new", {"cwd": str(ws), "mcpServers": []}))["sessionId"]
        assert await acp.request("session/prompt", prompt_params(sid, "hello")) == {"stopReason": "end_turn"}
    finally:
        stderr = await acp.close()
    return stderr, str(sid)


@pytest.mark.parametrize("face", FACES)
async def test_every_face_runs_on_the_default_store_when_the_configured_one_cannot_be_opened(
    face: str, fake_llm: FakeLLMServer, workspace: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.db"
    broken.write_bytes(NOT_SQLITE)
    fake_llm.script(Reply.text("still working"))
    told, sid = await _turn_on_a_broken_store(face, fake_llm, workspace, {"AGENT_SERVER_STORE__PATH": str(broken)})
    notice = next((line for line in told.splitlines() if "store.path" in line), "")
    assert str(broken) in notice and "default store" in notice, told[-3000:]
    assert broken.read_bytes() == NOT_SQLITE  # the user's file is left as it was
    # The conversation is kept where the notice says: the default store lists it for a later resume.
    assert sid in stored_sessions(workspace, tmp_path)


# --- the workspace trusted through each face's own question ---------------------------------------------------


async def _trusted_turn(face: str, fake: FakeLLMServer, ws: Path, env: dict[str, str], marker: Path) -> list[str]:
    """Open a session, trust the workspace when asked (after the session is open, as a user reading the question
    does), run a turn that runs `touch ran.txt`, and see the workspace's MCP program start while the face still
    runs; returns the permission requests the user saw."""
    fake.script(Reply.tool_call("run_command", {"command": "touch ran.txt"}), Reply.text("done"))
    asked: list[str] = []
    if face == "terminal":
        master, slave = pty.openpty()
        try:
            os.write(master, b"2\n")  # "2. Trust this workspace", waiting in the terminal's input buffer
            proc = run_chat([*llm_flags(fake), "-w", str(ws), "run it"], env, ws.parent, stdin=slave)
        finally:
            os.close(slave)
            os.close(master)
        assert proc.returncode == 0 and "Workspace trusted" in proc.stderr, proc.stderr
        await wait_until(marker.exists, "the trusted workspace's MCP program started")
        return ["asked"] if "Allow " in proc.stderr else []
    session_open = asyncio.Event()
    if face == "lsp":
        lsp = await LspClient.start(llm_flags(fake), env=env, cwd=ws.parent)

        async def trust_later(params: dict[str, Any]) -> dict[str, str]:
            await session_open.wait()
            return {"title": trust.TRUST}

        def permission(params: dict[str, Any]) -> dict[str, Any]:
            asked.append(params["toolCall"]["title"])
            return {"outcome": {"outcome": "selected", "optionId": "reject_once"}}

        lsp.handlers["window/showMessageRequest"] = trust_later
        lsp.handlers["agent/session/request_permission"] = permission
        try:
            await lsp.initialize(ws)
            sid = (await lsp.request("agent/session/new", {"cwd": str(ws), "mcpServers": []}))["sessionId"]
            session_open.set()
            await lsp.wait_for(lambda: any("Workspace trusted" in str(p) for _, _m, p in lsp.notifications))
            assert await lsp.request("agent/session/prompt", prompt_params(sid, "run it")) == {"stopReason": "end_turn"}
            await wait_until(marker.exists, "the trusted workspace's MCP program started for the open session")
        finally:
            await lsp.close()
        return asked
    acp = await AcpProcess.start(llm_flags(fake), env, ws.parent)

    async def elicited(params: dict[str, Any]) -> dict[str, Any]:
        await session_open.wait()
        return {"action": "accept", "content": {"choice": trust.TRUST}}

    async def acp_permission(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params["toolCall"].get("title", ""))
        return {"outcome": {"outcome": "selected", "optionId": "reject_once"}}

    acp.answers["elicitation/create"] = elicited
    acp.answers["session/request_permission"] = acp_permission
    try:
        caps = {"elicitation": {"form": {}}}
        await acp.request("initialize", {"protocolVersion": 1, "clientCapabilities": caps})
        sid = (await acp.request("session/new", {"cwd": str(ws), "mcpServers": []}))["sessionId"]
        session_open.set()
        assert await acp.request("session/prompt", prompt_params(sid, "run it")) == {"stopReason": "end_turn"}
        await wait_until(marker.exists, "the trusted workspace's MCP program started for the open session")
    finally:
        stderr = await acp.close()
    assert "Workspace trusted" in stderr, stderr[-3000:]
    return asked


@pytest.mark.parametrize("face", FACES)
async def test_every_face_applies_the_trusted_workspace_to_the_session_already_open(
    face: str, fake_llm: FakeLLMServer, workspace: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "mcp-started"
    (workspace / ".agent-server.toml").write_text(workspace_config(marker))
    env = {"AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db")}
    asked = await _trusted_turn(face, fake_llm, workspace, env, marker)
    assert asked == [] and (workspace / "ran.txt").exists()  # the trusted policy: run without asking
