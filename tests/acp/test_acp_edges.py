"""`agent-server acp` at the edges, with the real process on stdio: bad lines, newer protocol versions, unknown
sessions and fields, cancel during a permission question, huge prompts, the LLM server down."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.acp import wire
from tests.acp.ndjson_client import AcpProcess
from tests.acp_schema import validate
from tests.fakes import stray_stdout
from tests.fakes.fake_llm import FakeLLMServer, Reply

Start = Callable[..., Awaitable[AcpProcess]]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "main.py").write_text("print('hi')\n")
    return root


@pytest.fixture
async def start(tmp_path: Path, fake_llm: FakeLLMServer) -> AsyncIterator[Start]:
    procs: list[AcpProcess] = []

    async def run(
        base_url: str | None = None, model: str | None = None, extra_env: dict[str, str] | None = None
    ) -> AcpProcess:
        args = ["--provider", "ollama", "--base-url", base_url or fake_llm.url, "--model", model or "qwen3:8b"]
        env = {
            "AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db"),
            "AGENT_SERVER_INDEX__ENABLED": "false",
            "AGENT_SERVER_LLM__TOOL_MODE": "native",
            "HOME": str(tmp_path),
            **(extra_env or {}),
        }
        proc = await AcpProcess.start(args, env, tmp_path)
        procs.append(proc)
        return proc

    yield run
    for proc in procs:
        await proc.close()
    for proc in procs:
        if not proc.raw_lines:  # every message of a well-formed conversation is valid ACP, both ways
            wire.check(proc.wire)


async def _init(proc: AcpProcess, **caps: Any) -> dict[str, Any]:
    result = await proc.request("initialize", {"protocolVersion": 1, "clientCapabilities": caps})
    validate("InitializeResponse", result)
    return result  # type: ignore[no-any-return]


async def _new(proc: AcpProcess, cwd: Path) -> str:
    result = await proc.request("session/new", {"cwd": str(cwd), "mcpServers": []})
    validate("NewSessionResponse", result)
    return str(result["sessionId"])


async def test_bad_lines_get_json_rpc_errors_and_the_agent_keeps_serving(start: Start, workspace: Path) -> None:
    proc = await start()
    cases: list[tuple[bytes, int, Any]] = [
        (b"this is not json\n", -32700, None),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "initialize"\n', -32700, None),  # cut short
        (b"[1, 2, 3]\n", -32600, None),  # ACP has no batches
        (b"42\n", -32600, None),
        (b'{"id": 7, "method": "initialize", "params": {}}\n', -32600, 7),  # no "jsonrpc": "2.0"
        (b'{"jsonrpc": "2.0", "id": 8, "method": 5}\n', -32600, 8),
        (b'{"jsonrpc": "2.0", "id": 9, "method": "session/new", "params": [1]}\n', -32602, 9),
        (b'{"jsonrpc": "2.0", "id": 10, "method": "agent/session/new", "params": {}}\n', -32601, 10),
        (b'{"jsonrpc": "2.0", "id": 11, "method": "session/new", "params": {"cwd": 3}}\n', -32602, 11),
    ]
    for line, code, msg_id in cases:
        proc.raw(line)
        answer = await proc.next_unsolicited()
        proc.notifications.remove(answer)
        assert answer["error"]["code"] == code, (line, answer)
        assert answer["id"] == msg_id, (line, answer)
    proc.raw(b"\n\r\n   \n")  # blank lines are nothing, not errors
    proc.raw(b'{"jsonrpc": "2.0", "method": "no/such/notification", "params": {}}\n')  # no answer
    assert (await _init(proc))["protocolVersion"] == 1
    assert not [m for m in proc.notifications if "error" in m]


async def test_newer_protocol_version_and_unknown_fields(start: Start, workspace: Path) -> None:
    proc = await start()
    result = await proc.request(
        "initialize",
        {
            "protocolVersion": 99,
            "clientCapabilities": {"fs": {"readTextFile": True, "future": 1}, "somethingNew": {"x": True}},
            "clientInfo": {"name": "future-editor", "version": "9", "extra": []},
            "aNewTopLevelField": "ignored",
        },
    )
    assert result["protocolVersion"] == 1
    caps = result["agentCapabilities"]
    assert caps["loadSession"] is True
    assert caps["promptCapabilities"] == {"image": False, "audio": False, "embeddedContext": True}
    assert {"list", "delete", "resume", "close"} <= set(caps["sessionCapabilities"])
    assert result["authMethods"] == []
    new = await proc.request("session/new", {"cwd": str(workspace), "mcpServers": [], "someDraftField": {"a": 1}})
    assert new["sessionId"].startswith("sess_")


async def test_unknown_session_is_a_clear_error(start: Start, workspace: Path) -> None:
    proc = await start()
    await _init(proc)
    for method, params in [
        ("session/prompt", {"sessionId": "sess_nope", "prompt": [{"type": "text", "text": "hi"}]}),
        ("session/load", {"sessionId": "sess_nope", "cwd": str(workspace), "mcpServers": []}),
        ("session/resume", {"sessionId": "sess_nope", "cwd": str(workspace)}),
        ("session/set_mode", {"sessionId": "sess_nope", "modeId": "ask"}),
        ("session/set_config_option", {"sessionId": "sess_nope", "configId": "mode", "value": "ask"}),
        ("session/delete", {"sessionId": "sess_nope"}),
        ("session/close", {"sessionId": "sess_nope"}),
        ("session/fork", {"sessionId": "sess_nope", "cwd": str(workspace), "mcpServers": []}),
    ]:
        answer = await proc.call(method, params)
        assert answer["error"]["code"] == -32002, (method, answer)
        assert answer["error"]["data"] == {"sessionId": "sess_nope"}
        assert "sess_nope" in answer["error"]["message"]
    proc.notify("session/cancel", {"sessionId": "sess_nope"})  # a notification: logged, never answered
    assert (await proc.request("session/list", {}))["sessions"] == []


async def test_bad_mode_and_option_values_are_invalid_params(start: Start, workspace: Path) -> None:
    proc = await start()
    await _init(proc)
    sid = await _new(proc, workspace)
    for method, params in [
        ("session/set_mode", {"sessionId": sid, "modeId": "yolo"}),
        ("session/set_config_option", {"sessionId": sid, "configId": "mode", "value": "yolo"}),
        ("session/set_config_option", {"sessionId": sid, "configId": "model", "value": "no-such-model"}),
        ("session/set_config_option", {"sessionId": sid, "configId": "temperature", "value": "hot"}),
        ("session/new", {"cwd": "relative/dir", "mcpServers": []}),
        ("session/load", {"sessionId": sid, "cwd": "relative/dir", "mcpServers": []}),
        ("session/set_config_option", {"sessionId": sid, "configId": "thinking", "type": "boolean", "value": "yes"}),
        ("session/set_config_option", {"sessionId": sid, "configId": "thought_level", "value": "extreme"}),
        ("session/set_config_option", {"sessionId": sid, "configId": "mode", "type": "boolean", "value": True}),
        ("session/list", {"cwd": str(workspace), "cursor": "not-a-cursor"}),
        ("session/new", {"cwd": str(workspace), "mcpServers": [], "additionalDirectories": ["relative/dir"]}),
        ("session/new", {"cwd": str(workspace), "mcpServers": [], "additionalDirectories": [str(workspace / "nope")]}),
        ("session/fork", {"sessionId": sid, "cwd": "relative/dir", "mcpServers": []}),
    ]:
        answer = await proc.call(method, params)
        assert answer["error"]["code"] == -32602, (method, answer)
    # A slash command with a bad argument answers in the conversation.
    result = await proc.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "/mode x"}]})
    assert result == {"stopReason": "end_turn"}
    said = "".join(u["content"]["text"] for u in proc.updates(sid) if u["sessionUpdate"] == "agent_message_chunk")
    assert "'x'" in said and "ask" in said, said  # the answer names the modes there are


async def test_cancel_while_the_client_is_asked_ends_the_turn_as_cancelled(
    start: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    proc = await start()
    await _init(proc)
    sid = await _new(proc, workspace)
    asked = asyncio.Event()
    answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()

    async def permission(params: dict[str, Any]) -> dict[str, Any]:
        validate("RequestPermissionRequest", params)
        asked.set()
        return await answer  # as ACP asks: after session/cancel the client answers "cancelled"

    proc.answers["session/request_permission"] = permission
    fake_llm.script(Reply.tool_call("write_file", {"path": "x.txt", "content": "no\n"}), Reply.text("never"))
    prompt = asyncio.ensure_future(
        proc.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "write x"}]})
    )
    await asyncio.wait_for(asked.wait(), 30)
    proc.notify("session/cancel", {"sessionId": sid})
    answer.set_result({"outcome": {"outcome": "cancelled"}})
    assert await asyncio.wait_for(prompt, 30) == {"stopReason": "cancelled"}
    assert not (workspace / "x.txt").exists()
    # The session goes on.
    fake_llm.script(Reply.text("still here"))
    again = await proc.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]})
    assert again == {"stopReason": "end_turn"}


async def test_a_prompt_bigger_than_a_pipe_buffer_is_one_message(
    start: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    proc = await start()
    await _init(proc)
    sid = await _new(proc, workspace)
    big = "".join(f"line {i}: {'x' * 60}\n" for i in range(5000))  # ~350 KB on one JSON line
    fake_llm.script(Reply.text("got it"))
    prompt = [
        {"type": "text", "text": "Summarize this file"},
        {"type": "resource", "resource": {"uri": (workspace / "big.txt").as_uri(), "text": big}},
    ]
    validate("PromptRequest", {"sessionId": sid, "prompt": prompt})
    assert await proc.request("session/prompt", {"sessionId": sid, "prompt": prompt}) == {"stopReason": "end_turn"}
    sent = json.dumps(fake_llm.chat_requests()[-1].json)
    assert "Summarize this file" in sent and "line 0: xxx" in sent  # the resource arrived whole enough to use


async def test_sessions_open_while_the_llm_server_is_down(start: Start, workspace: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    proc = await start(base_url=f"http://127.0.0.1:{port}", model="configured:7b")
    await _init(proc)
    result = await proc.request("session/new", {"cwd": str(workspace), "mcpServers": []})
    validate("NewSessionResponse", result)
    model = next(o for o in result["configOptions"] if o["category"] == "model")
    assert model["currentValue"] == "configured:7b"
    answer = await proc.call(
        "session/prompt", {"sessionId": result["sessionId"], "prompt": [{"type": "text", "text": "hi"}]}
    )
    assert answer["error"]["code"] == -32010
    assert str(port) in answer["error"]["message"]


async def test_delete_then_load_fails_and_list_forgets_it(
    start: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    proc = await start()
    await _init(proc)
    sid = await _new(proc, workspace)
    fake_llm.script(Reply.text("hello"))
    await proc.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "remember me"}]})
    listed = await proc.request("session/list", {"cwd": str(workspace)})
    validate("ListSessionsResponse", listed)
    assert [s["title"] for s in listed["sessions"]] == ["remember me"]
    assert await proc.request("session/delete", {"sessionId": sid}) == {}
    assert (await proc.request("session/list", {"cwd": str(workspace)}))["sessions"] == []
    answer = await proc.call("session/load", {"sessionId": sid, "cwd": str(workspace), "mcpServers": []})
    assert answer["error"]["code"] == -32002


async def test_nothing_but_json_rpc_on_stdout_even_from_child_processes(
    start: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    proc = await start()
    await _init(proc)
    sid = await _new(proc, workspace)
    proc.answers["session/request_permission"] = _allow
    fake_llm.script(Reply.tool_call("run_command", {"command": "echo to-the-pipe; echo to-tty >/dev/stdout"}))
    fake_llm.script(Reply.text("done"))
    await proc.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "run"}]})
    # Every line the reader saw parsed as JSON-RPC (it asserts); the command's output is in the tool result.
    results = [u for u in proc.updates(sid) if u["sessionUpdate"] == "tool_call_update" and u.get("content")]
    assert "to-the-pipe" in json.dumps(results)


async def test_a_library_writing_to_stdout_while_the_agent_loads_never_reaches_the_client(
    start: Start, workspace: Path, tmp_path: Path
) -> None:
    site = stray_stdout.site_folder(tmp_path, "agent_server.cli")  # the full CLI loads long before the ACP loop runs
    proc = await start(extra_env={"PYTHONPATH": str(site)})
    await _init(proc)  # the reader asserts every stdout line is JSON-RPC
    assert (await _new(proc, workspace)).startswith("sess_")
    procs_stderr = await proc.close()
    assert stray_stdout.WHILE_LOADING in procs_stderr


async def _allow(params: dict[str, Any]) -> dict[str, Any]:
    return {"outcome": {"outcome": "selected", "optionId": "allow_once"}}


STDIO_MCP = str(Path(__file__).parents[1] / "fakes" / "mcp_stdio_server.py")


async def test_the_clients_mcp_servers_serve_code_mode_and_stay_out_of_ask_mode(
    start: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    proc = await start()
    await _init(proc)
    server = {"name": "demo", "command": sys.executable, "args": [STDIO_MCP], "env": []}
    new = await proc.request("session/new", {"cwd": str(workspace), "mcpServers": [server]})
    sid = new["sessionId"]
    offered: list[str] = []
    for _ in range(40):  # servers start in the background; the first turns do not wait for them
        fake_llm.script(Reply.text("ok"))
        await proc.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "add"}]})
        offered = [t["function"]["name"] for t in fake_llm.chat_requests()[-1].json.get("tools", [])]
        if "demo__add" in offered:
            break
        await asyncio.sleep(0.25)
    assert "demo__add" in offered, offered
    proc.answers["session/request_permission"] = _allow
    fake_llm.script(Reply.tool_call("demo__add", {"a": 2, "b": 40}), Reply.text("42"))
    await proc.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "add 2 and 40"}]})
    assert "42" in fake_llm.chat_requests()[-1].json["messages"][-1]["content"]

    assert await proc.request("session/set_mode", {"sessionId": sid, "modeId": "ask"}) == {}
    fake_llm.script(Reply.text("looked only"))
    await proc.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "add again"}]})
    asked = {t["function"]["name"] for t in fake_llm.chat_requests()[-1].json.get("tools", [])}
    assert "read_file" in asked
    assert not asked & {"demo__add", "run_command", "write_file", "edit_file"}, asked


async def test_compact_command_summarizes_older_turns_for_the_next_prompt(
    start: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    proc = await start()
    await _init(proc)
    sid = await _new(proc, workspace)
    said = await _say(proc, sid, "/compact")
    assert "Nothing to compact" in said
    for i in range(8):
        fake_llm.script(Reply.text(f"answer {i}: " + "details " * 200))
        await proc.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": f"q{i} " * 100}]})
    fake_llm.script(Reply.text("ok"))
    await proc.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "before"}]})
    before = fake_llm.chat_requests()[-1].json["messages"]
    asked = len(fake_llm.chat_requests())
    fake_llm.script(*[Reply.text("SUMMARY-OF-OLD-TURNS") for _ in range(10)])
    said = await _say(proc, sid, "/compact")
    assert "Context compacted" in said, said
    assert len(fake_llm.chat_requests()) > asked  # the model wrote the summaries
    fake_llm.script(Reply.text("ok"))
    await proc.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "after"}]})
    after = fake_llm.chat_requests()[-1].json["messages"]
    assert len(json.dumps(after)) < len(json.dumps(before)) / 2
    assert "SUMMARY-OF-OLD-TURNS" in json.dumps(after)
    commands = [u for u in proc.updates(sid) if u["sessionUpdate"] == "available_commands_update"]
    assert "compact" in [c["name"] for c in commands[0]["availableCommands"]]


async def _say(proc: AcpProcess, sid: str, text: str) -> str:
    """Run a prompt; the agent's message text of that turn."""
    start = len(proc.updates(sid))
    await proc.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": text}]})
    turn = proc.updates(sid)[start:]
    return "".join(u["content"]["text"] for u in turn if u["sessionUpdate"] == "agent_message_chunk")


async def test_cancel_request_on_a_prompt_ends_it_as_cancelled(
    start: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    proc = await start()
    await _init(proc)
    sid = await _new(proc, workspace)
    fake_llm.script(Reply.from_dict({"steps": [{"text": "starting"}, {"delay": 30}, {"text": "never"}]}))
    prompt = asyncio.ensure_future(
        proc.call("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "slow"}]})
    )
    for _ in range(1000):
        if any(u["sessionUpdate"] == "agent_message_chunk" for u in proc.updates(sid)):
            break
        await asyncio.sleep(0.01)
    request_id = next(m["id"] for m in reversed(proc.sent) if m.get("method") == "session/prompt")
    proc.notify("$/cancel_request", {"requestId": request_id})
    answer = await asyncio.wait_for(prompt, 30)
    assert answer["result"] == {"stopReason": "cancelled"}


async def test_permission_diff_comes_from_the_clients_unsaved_buffer(
    start: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    proc = await start()
    await _init(proc, fs={"readTextFile": True, "writeTextFile": True})
    sid = await _new(proc, workspace)
    unsaved = "print('hi')\nprint('UNSAVED')\n"
    written: list[dict[str, Any]] = []
    asked: list[dict[str, Any]] = []

    async def read(params: dict[str, Any]) -> dict[str, Any]:
        return {"content": unsaved}

    async def write(params: dict[str, Any]) -> dict[str, Any]:
        written.append(params)
        return {}

    async def permission(params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return {"outcome": {"outcome": "selected", "optionId": "allow_once"}}

    proc.answers["fs/read_text_file"] = read
    proc.answers["fs/write_text_file"] = write
    proc.answers["session/request_permission"] = permission
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "main.py", "old_text": "UNSAVED", "new_text": "EDITED"}),
        Reply.text("done"),
    )
    result = await proc.request("session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "edit"}]})
    assert result == {"stopReason": "end_turn"}
    [diff] = [c for c in asked[0]["toolCall"]["content"] if c["type"] == "diff"]
    assert diff["oldText"] == unsaved and diff["newText"] == "print('hi')\nprint('EDITED')\n"
    assert written and written[-1]["content"] == diff["newText"], "the change made is the change shown"
