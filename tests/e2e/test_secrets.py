"""Secrets never reach the logs, even at DEBUG where every JSON-RPC message body is logged."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import new_session
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.lsp_client import LspClient

API_KEY = "sk-live-Abc/Def+Ghi0123456789"
HEADER_TOKEN = "ghp_HEADERTOKEN0123456789"


async def test_debug_logs_mask_api_keys_and_headers(workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path) -> None:
    log_file = tmp_path / "server.log"
    client = await LspClient.start(
        args=["--log-level", "DEBUG", "--log-file", str(log_file)],
        env={"AGENT_SERVER_STORE__PATH": str(tmp_path / "s.db")},
    )
    options = {
        "llm": {"provider": "openai", "baseUrl": fake_llm.url, "model": fake_llm.models[0].name, "apiKey": API_KEY},
        "mcpServers": {"gh": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": f"Bearer {HEADER_TOKEN}"}}},
    }
    try:
        await client.initialize(workspace, options)
        sid = await new_session(client, workspace)
        fake_llm.script(Reply.text("hi"))
        await client.request("agent/session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hello"}]})
        assert fake_llm.chat_requests()[-1].headers.get("authorization") == f"Bearer {API_KEY}"  # it was really used
    finally:
        await client.close()
    logged = log_file.read_text() + await client.stderr_text()
    assert "initializationOptions" in logged or "apiKey" in logged  # DEBUG really logged the bodies
    assert API_KEY not in logged and "Abc/Def" not in logged
    assert HEADER_TOKEN not in logged


FILE_TEXT = "def private_function():\n    return 'FILE-CONTENT-STAYS-LOCAL'\n"


async def test_debug_trace_has_every_lsp_message_redacted(
    workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    """`serve --log-level DEBUG --log-file F`: each message both ways, shapes kept, file texts as their length."""
    log_file = tmp_path / "server.log"
    client = await LspClient.start(
        args=["--log-level", "DEBUG", "--log-file", str(log_file)],
        env={"AGENT_SERVER_STORE__PATH": str(tmp_path / "s.db")},
    )
    options = {
        "llm": {"provider": "ollama", "baseUrl": fake_llm.url, "model": fake_llm.models[0].name, "apiKey": API_KEY}
    }
    uri = (workspace / "private.py").as_uri()
    try:
        await client.initialize(workspace, options)
        item = {"uri": uri, "languageId": "python", "version": 1, "text": FILE_TEXT}
        client.notify("textDocument/didOpen", {"textDocument": item})
        sid = await new_session(client, workspace)
        fake_llm.script(Reply.text("hi"))
        await client.request("agent/session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hello"}]})
    finally:
        await client.close()
    logged = log_file.read_text()
    trace = [line for line in logged.splitlines() if " agent_server.trace: lsp " in line]
    incoming = " ".join(line for line in trace if " client->server " in line)
    outgoing = " ".join(line for line in trace if " server->client " in line)
    for method in ("initialize", "initialized", "textDocument/didOpen", "agent/session/new", "agent/session/prompt"):
        assert f'"method":"{method}"' in incoming, method
    assert '"method":"agent/session/update"' in outgoing and '"result"' in outgoing
    assert f'"text":"<{len(FILE_TEXT)} chars>"' in incoming
    assert "FILE-CONTENT-STAYS-LOCAL" not in logged
    assert API_KEY not in logged
