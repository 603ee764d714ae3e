"""Hooks through the real server: real programs get the event on stdin; a pre-hook blocks a call with a message the
model reads (fake LLM request log); a post-hook's feedback reaches the model; Stop runs at the end of a turn; a hung
hook is killed at its timeout and the turn goes on; a workspace's hooks run only once the workspace is trusted."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from agent_server import trust
from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import answer_permissions, prompt, prompt_params, sent_messages
from tests.fakes.fake_llm import FakeLLMServer, Reply

HOOK = r"""
import json, os, sys, time
event = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(event) + "\n")
mode = sys.argv[2]
if mode == "block-rm" and "rm " in event["tool_input"].get("command", ""):
    print("deleting files is not allowed in this repository; use git clean -n to preview", file=sys.stderr)
    sys.exit(2)
if mode == "feedback":
    print("lint: calc.py:2 unused variable", file=sys.stderr)
    sys.exit(2)
if mode == "sleep":
    with open(sys.argv[1] + ".pid", "w") as f:
        f.write(str(os.getpid()))
    time.sleep(60)
if mode == "crash":
    print("boom", file=sys.stderr)
    sys.exit(1)
"""


def hook_command(tmp_path: Path, log: Path, mode: str) -> list[str]:
    script = tmp_path / "hook.py"
    script.write_text(HOOK)
    return [sys.executable, str(script), str(log), mode]


def toml_hooks(event: str, command: list[str], matcher: str = "*", timeout: float = 10) -> str:
    return f'[[hooks.{event}]]\nmatcher = "{matcher}"\ncommand = {json.dumps(command)}\ntimeout_s = {timeout}\n'


def user_config(text: str) -> None:
    folder = Path(os.environ["XDG_CONFIG_HOME"]) / "agent-server"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)


def events(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def tool_messages(fake: FakeLLMServer, index: int) -> list[str]:
    return [m["content"] for m in sent_messages(fake, index) if m["role"] == "tool"]


async def test_a_pre_hook_blocks_a_call_with_its_message_and_others_run_after_it(
    start_server: Start, workspace: Path, tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    log = tmp_path / "events.jsonl"
    (workspace / "keep.txt").write_text("keep")
    user_config(
        toml_hooks("PreToolUse", hook_command(tmp_path, log, "block-rm"), matcher="run_command")
        + toml_hooks("PostToolUse", hook_command(tmp_path, log, "feedback"), matcher="read_file|edit_*")
        + toml_hooks("Stop", hook_command(tmp_path, log, "ok"))
    )
    server = await start_server(workspace, llm_options(fake_llm))
    asked = answer_permissions(server, "allow_once")
    sid = await new_session(server, workspace)
    fake_llm.script(
        Reply.tool_call("run_command", {"command": "rm keep.txt"}),
        Reply.tool_call("read_file", {"path": "keep.txt"}),
        Reply.text("done"),
    )
    assert await prompt(server, sid, "clean up") == "end_turn"
    assert (workspace / "keep.txt").exists() and asked == [], "blocked before any approval was asked"
    results = tool_messages(fake_llm, 2)
    assert "A hook of the user blocked this run_command call" in results[0]
    assert "use git clean -n to preview" in results[0]
    assert results[1].startswith("keep.txt") and "[hook: lint: calc.py:2 unused variable]" in results[1]
    seen = events(log)
    assert [e["hook_event_name"] for e in seen] == ["PreToolUse", "PostToolUse", "Stop"]
    assert seen[0]["tool_name"] == "run_command" and seen[0]["tool_input"] == {"command": "rm keep.txt"}
    assert seen[1]["tool_response"]["is_error"] is False and "keep" in seen[1]["tool_response"]["text"]
    assert seen[2]["stop_reason"] == "end_turn" and seen[2]["session_id"] == sid
    cards = [u for u in server.updates(sid) if u.get("_meta", {}).get("rejected")]
    assert cards and cards[0]["_meta"]["rejected"]["by"] == "policy"


async def test_a_hung_or_broken_hook_never_hangs_the_turn(
    start_server: Start, workspace: Path, tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    log = tmp_path / "events.jsonl"
    user_config(
        toml_hooks("PreToolUse", hook_command(tmp_path, log, "sleep"), timeout=0.5)
        + toml_hooks("PostToolUse", hook_command(tmp_path, log, "crash"))
    )
    (workspace / "a.txt").write_text("alpha")
    server = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(server, workspace)
    fake_llm.script(Reply.tool_call("read_file", {"path": "a.txt"}), Reply.text("done"))
    assert await prompt(server, sid, "read it") == "end_turn"
    assert "alpha" in tool_messages(fake_llm, 1)[0], "the call ran as if the hooks had not"
    logs = [p["message"] for _, m, p in server.notifications if m == "window/logMessage"]
    assert any("PreToolUse hook" in t and "timed out after 0.5 s" in t for t in logs), logs
    assert any("PostToolUse hook" in t and "exited with 1: boom" in t for t in logs), logs


async def test_a_workspace_hook_runs_only_once_the_workspace_is_trusted(
    start_server: Start, workspace: Path, tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    log = tmp_path / "events.jsonl"
    config = workspace / ".agent-server.toml"
    config.write_text(toml_hooks("Stop", hook_command(tmp_path, log, "ok")))
    server = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(server, workspace)
    fake_llm.script(Reply.text("one"))
    assert await prompt(server, sid, "hi") == "end_turn"
    assert events(log) == [], "an untrusted repository cannot run a program"

    trust.TrustStore(tmp_path / "agent.db").remember(workspace.resolve(), trust.file_digest(config), True)
    trusted = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(trusted, workspace)
    fake_llm.script(Reply.text("two"))
    assert await prompt(trusted, sid, "hi") == "end_turn"
    assert [e["hook_event_name"] for e in events(log)] == ["Stop"]


async def test_cancelling_the_turn_stops_a_running_hook(
    start_server: Start, workspace: Path, tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    log = tmp_path / "events.jsonl"
    user_config(toml_hooks("PreToolUse", hook_command(tmp_path, log, "sleep"), timeout=120))
    (workspace / "a.txt").write_text("alpha")
    server = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(server, workspace)
    fake_llm.script(Reply.tool_call("read_file", {"path": "a.txt"}), Reply.text("done"))
    _, fut = server.request_nowait("agent/session/prompt", prompt_params(sid, "read it"))
    pid_file = Path(str(log) + ".pid")
    for _ in range(200):
        if pid_file.exists() and pid_file.read_text():
            break
        await asyncio.sleep(0.05)
    pid = int(pid_file.read_text())
    server.notify("agent/session/cancel", {"sessionId": sid})
    assert await asyncio.wait_for(fut, 10) == {"stopReason": "cancelled"}
    for _ in range(100):
        if not _alive(pid):
            break
        await asyncio.sleep(0.05)
    assert not _alive(pid), "the hook was killed with the turn"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (killed, not yet reaped by the server) counts as gone.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False
