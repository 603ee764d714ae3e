"""`agent-server acp` and pictures: `promptCapabilities.image` follows what the model's server reports, an image
block reaches a vision model, a text-only model's user is told, a bad picture is an error and the agent goes on.
Every message on the wire is checked against the ACP v1 schema."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from tests.acp import wire
from tests.acp.ndjson_client import AcpProcess
from tests.acp_schema import validate
from tests.e2e.test_images import PNG64
from tests.fakes.fake_llm import FakeLLMServer

Start = Callable[..., Awaitable[AcpProcess]]


@pytest.fixture
async def start(tmp_path: Path, fake_llm: FakeLLMServer) -> AsyncIterator[Start]:
    procs: list[AcpProcess] = []

    async def run(**settings: str) -> AcpProcess:
        args = ["--provider", "ollama", "--base-url", fake_llm.url, "--model", "qwen3:8b"]
        env = {
            "AGENT_SERVER_STORE__PATH": str(tmp_path / "agent.db"),
            "AGENT_SERVER_INDEX__ENABLED": "false",
            "HOME": str(tmp_path),
            **settings,
        }
        proc = await AcpProcess.start(args, env, tmp_path)
        procs.append(proc)
        return proc

    yield run
    for proc in procs:
        await proc.close()
    for proc in procs:
        wire.check(proc.wire)


async def _session(proc: AcpProcess, cwd: Path) -> tuple[dict[str, Any], str]:
    init = await proc.request("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    validate("InitializeResponse", init)
    session = await proc.request("session/new", {"cwd": str(cwd), "mcpServers": []})
    return init, str(session["sessionId"])


def _prompt(sid: str, data: str = PNG64) -> dict[str, Any]:
    return {
        "sessionId": sid,
        "prompt": [{"type": "text", "text": "what is this?"}, {"type": "image", "mimeType": "image/png", "data": data}],
    }


def _said(proc: AcpProcess, sid: str) -> str:
    return "".join(
        u["content"].get("text", "") for u in proc.updates(sid) if u["sessionUpdate"] == "agent_message_chunk"
    )


async def test_a_vision_model_is_advertised_and_gets_the_image_block(
    start: Start, tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.set_vision(True)
    proc = await start()
    init, sid = await _session(proc, tmp_path)
    assert init["agentCapabilities"]["promptCapabilities"]["image"] is True
    assert (await proc.request("session/prompt", _prompt(sid)))["stopReason"] == "end_turn"
    user = [m for m in fake_llm.chat_requests()[-1].json["messages"] if m["role"] == "user"][-1]
    assert user["images"] == [PNG64] and user["content"] == "what is this?"

    bad = await proc.call("session/prompt", _prompt(sid, data="%%%"))
    assert bad["error"]["code"] == -32602 and "not valid base64" in bad["error"]["message"]
    assert (await proc.request("session/prompt", _prompt(sid)))["stopReason"] == "end_turn"


async def test_a_text_only_model_is_not_advertised_and_its_user_is_told(
    start: Start, tmp_path: Path, fake_llm: FakeLLMServer
) -> None:
    proc = await start()
    init, sid = await _session(proc, tmp_path)
    assert init["agentCapabilities"]["promptCapabilities"]["image"] is False
    # A client that sends one anyway (ignoring the capability) gets an answer, not a crash.
    assert (await proc.request("session/prompt", _prompt(sid)))["stopReason"] == "end_turn"
    assert not any("images" in m for m in fake_llm.chat_requests()[-1].json["messages"])
    assert "image not sent: qwen3:8b has no vision support" in _said(proc, sid)


async def test_llm_vision_on_advertises_without_asking(start: Start, tmp_path: Path, fake_llm: FakeLLMServer) -> None:
    fake_llm.flavor = "openai"  # a server that does not say
    proc = await start(AGENT_SERVER_LLM__VISION="on")
    init, _sid = await _session(proc, tmp_path)
    assert init["agentCapabilities"]["promptCapabilities"]["image"] is True
