"""The built-in model's server answers agent-server alone (issue 38), through the real agent-server and the real
xllamacpp child it starts (Qwen2.5-Coder-0.5B, which fills in the middle and chats).

Another local process (or a web page, through the browser) gets 401 from every endpoint but `/health`, cannot write a
slot file, and no web origin is granted CORS access; meanwhile agent-server's own requests carry the key it made for
this run and work: the completion route (`/props` probe, the `/infill` check and completions), the chat turn (`/props`
discovery, `/v1/chat/completions`) and the saved slot of an idle session (`/apply-template`, `/slots`).
"""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import httpx
import pytest

from agent_server.config import EmbeddedConfig
from agent_server.llm.embedded.server import slot_save_dir
from tests.e2e.conftest import Start, new_session
from tests.real_llm.llama import binaries_from
from tests.real_llm.test_real_llm import STOP_REASONS, prompt

SOURCE = "def add(a, b):\n    return \n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def outsider_is_refused(url: str, slots: Path) -> None:
    """What any other local process, or a page in the user's browser, can do with the server: nothing."""
    async with httpx.AsyncClient(timeout=30) as http:
        for method, path in [("GET", "/props"), ("GET", "/v1/models"), ("GET", "/slots"), ("POST", "/infill"),
                             ("POST", "/v1/chat/completions"), ("POST", "/tokenize")]:  # fmt: skip
            answer = await http.request(method, url + path, json={"content": "x", "messages": []})
            assert answer.status_code == 401, (path, answer.status_code)
        planted = await http.post(url + "/slots/0?action=save", json={"filename": "planted.bin"})
        assert planted.status_code == 401 and not (slots / "planted.bin").exists()
        web = {"Origin": "http://evil.example"}
        asks = {**web, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization"}
        for answer in (
            await http.get(url + "/health", headers=web),
            await http.options(url + "/v1/chat/completions", headers=asks),
            await http.get(url + "/props", headers=web),
        ):
            # No origin is granted: the header is absent or empty, which no browser accepts.
            assert answer.headers.get("access-control-allow-origin", "") == "", answer.headers


async def test_the_built_in_models_server_answers_agent_server_alone(
    start_server: Start, tmp_path: Path, real_llm_out: str
) -> None:
    found = binaries_from(real_llm_out, "QWEN_MODEL")
    if found is None:
        pytest.fail(f"scripts/real_llm.sh gave no Qwen model: {real_llm_out}")
    port = free_port()
    workspace = tmp_path / "proj"
    workspace.mkdir()
    embedded = {"port": port, "context": 4096, "threads": 1, "cacheDir": str(tmp_path / "models")}
    options = {
        "llm": {
            "provider": "embedded",
            "model": str(found[1]),
            "temperature": 0,
            "maxTokens": 24,
            "embedded": embedded,
        },
        "completion": {"debounceMs": 0, "contextTokens": 0, "maxTokens": 16},
        "agent": {"maxRounds": 1},
    }
    client = await start_server(workspace, options)
    uri = (workspace / "calc.py").as_uri()
    item = {"uri": uri, "languageId": "python", "version": 1, "text": SOURCE}
    client.notify("textDocument/didOpen", {"textDocument": item})
    position = {"line": 1, "character": 11}
    params = {"textDocument": {"uri": uri}, "position": position, "context": {"triggerKind": 2}}
    # The first request starts the child (the model loads); completion found llama.cpp and checked /infill.
    suggestion = await client.request("textDocument/inlineCompletion", params, timeout=600)
    status = await client.request("agent/_completion/status", {}, timeout=120)
    assert status["supported"] is True and "llamacpp" in str(status["backend"]), status
    assert suggestion["items"] and suggestion["items"][0]["insertText"].strip(), suggestion

    slots = slot_save_dir(EmbeddedConfig())  # under the test's own XDG cache (tests/conftest.py), as the server's
    await outsider_is_refused(f"http://127.0.0.1:{port}", slots)

    sid = await new_session(client, workspace)
    reason = await prompt(client, sid, "Reply with the single word: ok")
    assert reason in STOP_REASONS and client.text(sid).strip(), (reason, client.text(sid))
    # The session is idle: its KV cache is saved to a slot file, through /apply-template and /slots with the key.
    for _ in range(240):
        if list(slots.glob("agent-server-*.bin")):
            break
        await asyncio.sleep(0.5)
    assert list(slots.glob("agent-server-*.bin")), sorted(p.name for p in slots.iterdir()) if slots.exists() else []
