"""The walking skeleton through the real server process: streaming, cancellation, errors, the terminal face."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import pytest

from tests import server_zygote
from tests.acp_schema import validate
from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import ANSWERED_MEANWHILE_S
from tests.fakes.fake_llm import Delay, FakeLLMServer, Reply, Text, Thinking
from tests.lsp_client import LspClient, RpcError


def prompt_params(session_id: str, text: str) -> dict[str, object]:
    return {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}


async def test_initialize_advertises_acp_capabilities(server: LspClient) -> None:
    result = await server.request("agent/initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    validate("InitializeResponse", result)
    assert result["protocolVersion"] == 1
    assert result["agentCapabilities"]["loadSession"] is True


async def test_prompt_streams_text_and_thinking_in_order(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    answer = "Hello there! Here is a streamed answer, piece by piece."
    fake_llm.script(
        Reply(steps=[Thinking("Let me think"), Thinking(" about it."), Text(answer[:20]), Text(answer[20:])])
    )
    sid = await new_session(server, workspace)
    result = await server.request("agent/session/prompt", prompt_params(sid, "Say hello"))
    validate("PromptResponse", result)
    assert result == {"stopReason": "end_turn"}
    assert server.text(sid) == answer
    assert server.text(sid, "agent_thought_chunk") == "Let me think about it."
    kinds = [u["sessionUpdate"] for u in server.updates(sid)]
    assert kinds.index("agent_thought_chunk") < kinds.index("agent_message_chunk")
    for _, method, params in server.notifications:
        if method == "agent/session/update":
            validate("SessionNotification", params)
    sent = fake_llm.chat_requests()[0].json
    assert sent["messages"][-1] == {"role": "user", "content": "Say hello"}
    assert sent["messages"][0]["role"] == "system"


async def test_many_pieces_arrive_complete_and_in_order(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    pieces = [f"w{i} " for i in range(400)]
    fake_llm.script(Reply(steps=[Text(p) for p in pieces]))
    sid = await new_session(server, workspace)
    await server.request("agent/session/prompt", prompt_params(sid, "count"))
    assert server.text(sid) == "".join(pieces)


async def _start_slow_turn(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> tuple[str, int, asyncio.Future[object]]:
    steps: list[object] = []
    for i in range(300):
        steps += [Text(f"chunk{i} "), Delay(0.1)]
    fake_llm.script(Reply(steps=steps))  # type: ignore[arg-type]
    sid = await new_session(server, workspace)
    msg_id, fut = server.request_nowait("agent/session/prompt", prompt_params(sid, "long answer"))
    await server.wait_for(lambda: "chunk1" in server.text(sid))
    return sid, msg_id, fut


async def test_cancel_notification_ends_turn_as_cancelled(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    sid, _, fut = await _start_slow_turn(server, workspace, fake_llm)
    sent = time.perf_counter()
    server.notify("agent/session/cancel", {"sessionId": sid})
    result = await asyncio.wait_for(fut, 5)
    elapsed = time.perf_counter() - sent
    assert result == {"stopReason": "cancelled"}
    assert elapsed < ANSWERED_MEANWHILE_S, f"cancel took {elapsed:.3f}s"
    request = fake_llm.chat_requests()[0]
    assert request.wait_done(5) and request.disconnected, "the HTTP stream to the LLM server was not closed"
    # The session is still usable.
    fake_llm.script(Reply.text("still here"))
    again = await server.request("agent/session/prompt", prompt_params(sid, "are you there?"))
    assert again == {"stopReason": "end_turn"}
    assert server.text(sid).endswith("still here")


async def test_cancel_request_on_prompt_returns_cancelled_not_error(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    _sid, msg_id, fut = await _start_slow_turn(server, workspace, fake_llm)
    server.notify("$/cancelRequest", {"id": msg_id})
    assert await asyncio.wait_for(fut, 5) == {"stopReason": "cancelled"}
    assert fake_llm.chat_requests()[0].wait_done(5)


async def test_unreachable_llm_gives_clear_error_and_server_survives(start_server: Start, workspace: Path) -> None:
    dead = "http://127.0.0.1:9"  # discard port: nothing listens
    client = await start_server(workspace, {"llm": {"provider": "ollama", "baseUrl": dead, "model": "m", "retries": 1}})
    sid = await new_session(client, workspace)  # works while the LLM server is down
    started = time.perf_counter()
    with pytest.raises(RpcError) as err:
        await client.request("agent/session/prompt", prompt_params(sid, "hi"), timeout=30)
    assert time.perf_counter() - started < 20
    assert "127.0.0.1:9" in err.value.message
    assert "refused" in err.value.message.lower() or "connect" in err.value.message.lower()
    # Still serving.
    listed = await client.request("agent/session/list", {})
    assert [s["sessionId"] for s in listed["sessions"]] == [sid]


async def test_protocol_errors_are_answered_and_server_keeps_serving(server: LspClient, workspace: Path) -> None:
    with pytest.raises(RpcError) as err:
        await server.request("agent/session/prompt", prompt_params("sess_nope", "hi"))
    assert "sess_nope" in err.value.message
    with pytest.raises(RpcError) as err:
        await server.request("agent/session/prompt", {"sessionId": 42})
    assert err.value.code == -32602
    with pytest.raises(RpcError) as err:
        await server.request("agent/no/such/method", {})
    assert err.value.code == -32601
    server.send_raw(b"{this is not json")
    result = await server.request("agent/session/new", {"cwd": str(workspace), "mcpServers": []})
    assert result["sessionId"].startswith("sess_")


async def test_malformed_json_gets_parse_error(server: LspClient) -> None:
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[object] = loop.create_future()
    server._pending[None] = fut  # a parse error answers with id null
    server.send_raw(b'{"jsonrpc": "2.0", "id": 7, "method": ')
    with pytest.raises(RpcError) as err:
        await asyncio.wait_for(fut, 30)  # generous: a loaded CI machine
    assert err.value.code == -32700


def test_chat_command_streams_the_answer(workspace: Path, fake_llm: FakeLLMServer) -> None:
    fake_llm.script(Reply.text("The answer is 42.", pieces=4))
    env = {**os.environ, "NO_COLOR": "1"}
    proc = server_zygote.run(
        ["chat", "--workspace", str(workspace),
         "--provider", "ollama", "--base-url", fake_llm.url, "--model", fake_llm.models[0].name, "What is it?"],
        timeout=60, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "The answer is 42."
    assert json.loads(json.dumps(fake_llm.chat_requests()[0].json))["messages"][-1]["content"] == "What is it?"


async def test_openai_provider_with_v1_or_root_base_url(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    for base in (fake_llm.url, fake_llm.url + "/v1"):
        fake_llm.script(Reply.text(f"via {base}", pieces=3))
        opts = llm_options(fake_llm, provider="openai")
        opts["llm"]["baseUrl"] = base
        client = await start_server(workspace, opts)
        sid = await new_session(client, workspace)
        assert await client.request("agent/session/prompt", prompt_params(sid, "hi")) == {"stopReason": "end_turn"}
        assert client.text(sid) == f"via {base}"
    assert all(r.path == "/v1/chat/completions" for r in fake_llm.chat_requests())


async def test_workspace_configuration_overrides_initialization_options(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    caps = {"workspace": {"configuration": True, "applyEdit": False}, "window": {}}
    client = await LspClient.start(env={"AGENT_SERVER_STORE__PATH": str(workspace.parent / "cfg.db")})
    answers = [[{"agent": {"maxRounds": 1}}]]
    client.handlers["workspace/configuration"] = lambda params: answers[0]
    try:
        await client.initialize(workspace, llm_options(fake_llm), capabilities=caps)
        await client.wait_for(lambda: any(m == "workspace/configuration" for m, _ in client.server_requests))
        await asyncio.sleep(0.2)
        sid = await new_session(client, workspace)
        fake_llm.script(Reply.tool_call("list_directory", {"path": "."}), Reply.text("never reached"))
        result = await client.request("agent/session/prompt", prompt_params(sid, "look around"))
        assert result == {"stopReason": "max_turn_requests"}
        # A changed setting is pulled again.
        answers[0] = [{"agent": {"maxRounds": 5}}]
        client.notify("workspace/didChangeConfiguration", {"settings": None})
        await client.wait_for(lambda: sum(m == "workspace/configuration" for m, _ in client.server_requests) >= 2)
        await asyncio.sleep(0.2)
        fake_llm.script(Reply.tool_call("list_directory", {"path": "."}), Reply.text("done"))
        assert await client.request("agent/session/prompt", prompt_params(sid, "again")) == {"stopReason": "end_turn"}
    finally:
        await client.close()


async def test_terminal_resumes_a_session_from_the_server(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    client = await start_server(workspace, llm_options(fake_llm))  # the fixture's db: tmp_path / "agent.db"
    sid = await new_session(client, workspace)
    fake_llm.script(Reply.text("The capital is Paris."))
    await client.request("agent/session/prompt", prompt_params(sid, "capital of France?"))
    await client.close()

    fake_llm.script(Reply.text("About 2.1 million people."))
    env = {**os.environ, "NO_COLOR": "1", "AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db")}
    proc = await asyncio.to_thread(
        server_zygote.run,
        ["chat", "-w", str(workspace), "--session", sid,
         "--provider", "ollama", "--base-url", fake_llm.url, "--model", fake_llm.models[0].name, "how many live there?"],
        timeout=60, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "The capital is Paris." in proc.stdout and proc.stdout.rstrip().endswith("About 2.1 million people.")
    assert "capital of France?" in proc.stderr  # the earlier question is shown too
    sent = fake_llm.chat_requests()[-1].json["messages"]
    assert [m["content"] for m in sent if m["role"] != "system"] == [
        "capital of France?",
        "The capital is Paris.",
        "how many live there?",
    ]


async def test_read_file_sees_the_unsaved_buffer(server: LspClient, workspace: Path, fake_llm: FakeLLMServer) -> None:
    target = workspace / "draft.py"
    target.write_text("on_disk = 1\n")
    server.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": target.as_uri(), "languageId": "python", "version": 1, "text": "unsaved = 2\n"}},
    )
    fake_llm.script(Reply.tool_call("read_file", {"path": "draft.py"}), Reply.text("seen"))
    sid = await new_session(server, workspace)
    await server.request("agent/session/prompt", prompt_params(sid, "read draft.py"))
    result = fake_llm.chat_requests()[1].json["messages"][-1]
    assert result["role"] == "tool" and "unsaved = 2" in result["content"] and "on_disk" not in result["content"]


async def test_serve_over_tcp_for_debugging(workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "AGENT_SERVER_STORE__PATH": str(tmp_path / "tcp.db")}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agent_server", "serve", "--tcp", f"127.0.0.1:{port}",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env,
    )  # fmt: skip
    try:
        for _ in range(100):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.1)
        else:
            raise AssertionError("the TCP server never listened")

        async def call(msg_id: int, method: str, params: object) -> dict[str, object]:
            body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode()
            writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            while True:
                length = 0
                while (line := await reader.readline()) not in (b"\r\n", b""):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                message = json.loads(await reader.readexactly(length))
                if message.get("id") == msg_id:
                    return message

        init = await call(1, "initialize", {"processId": None, "rootUri": workspace.as_uri(), "capabilities": {},
                                            "initializationOptions": llm_options(fake_llm)})  # fmt: skip
        assert "capabilities" in init["result"]  # type: ignore[operator]
        created = await call(2, "agent/session/new", {"cwd": str(workspace), "mcpServers": []})
        assert str(created["result"]["sessionId"]).startswith("sess_")  # type: ignore[index]
        writer.close()
    finally:
        proc.kill()
        await proc.wait()
    out = await proc.stdout.read() if proc.stdout else b""
    assert out == b"", "nothing may be written to stdout"
