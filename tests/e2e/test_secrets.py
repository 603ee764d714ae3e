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
