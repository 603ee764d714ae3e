"""Pictures in a prompt, through the real server to the fake LLM: what reaches the model in each wire format, what a
text-only model gets instead, what happens on the next turn and after a reload, and bad pictures refused alone."""

from __future__ import annotations

import base64
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Start, llm_options, new_session
from tests.fakes import recorded
from tests.fakes.fake_llm import FakeLLMServer, FakeModel
from tests.lsp_client import RpcError


def png(width: int = 2, height: int = 2) -> bytes:
    """A real PNG (RGB, black)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\0" + b"\0\0\0" * width for _ in range(height))
    head = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", head) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


PNG64 = base64.b64encode(png()).decode()


def image_prompt(sid: str, text: str, data: str = PNG64, mime: str = "image/png") -> dict[str, Any]:
    return {
        "sessionId": sid,
        "prompt": [{"type": "text", "text": text}, {"type": "image", "mimeType": mime, "data": data}],
    }


def last_user(body: dict[str, Any]) -> dict[str, Any]:
    users: list[dict[str, Any]] = [m for m in body["messages"] if m["role"] == "user"]
    return users[-1]


def users(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in body["messages"] if m["role"] == "user"]


async def test_ollama_vision_model_gets_the_picture_once_and_a_reload_shows_it(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.set_vision(True)
    client = await start_server(workspace, llm_options(fake_llm))
    sid = await new_session(client, workspace)
    await client.request("agent/session/prompt", image_prompt(sid, "what is in this picture?"))
    sent = last_user(fake_llm.chat_requests()[-1].json)
    assert sent["images"] == [PNG64]  # Ollama: bare base64 beside the text
    assert sent["content"] == "what is in this picture?"

    # The next turn: the picture is not sent again, a short note stands in its place.
    await client.request("agent/session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "and now?"}]})
    body = fake_llm.chat_requests()[-1].json
    assert not any("images" in m for m in body["messages"])
    assert "image(s) attached here earlier (image/png)" in users(body)[0]["content"]

    # A reload replays the picture as the user sent it (kept in the session store).
    again = await start_server(workspace, llm_options(fake_llm))
    await again.request("agent/session/load", {"sessionId": sid, "cwd": str(workspace), "mcpServers": []})
    shown = [u["content"] for u in again.updates(sid) if u["sessionUpdate"] == "user_message_chunk"]
    assert {"type": "image", "mimeType": "image/png", "data": PNG64} in shown


async def test_llamacpp_with_a_projector_gets_openai_content_parts(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.flavor = "openai"
    fake_llm.props = recorded.props()
    fake_llm.models = recorded.fake_models()
    fake_llm.set_vision(True)  # /props modalities.vision, as llama-server --mmproj answers
    client = await start_server(workspace, llm_options(fake_llm, provider="openai"))
    sid = await new_session(client, workspace)
    await client.request("agent/session/prompt", image_prompt(sid, "describe it"))
    sent = last_user(fake_llm.chat_requests()[-1].json)
    assert sent["content"] == [
        {"type": "text", "text": "describe it"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG64}"}},
    ]


async def test_a_text_only_model_gets_no_picture_and_the_user_is_told(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.flavor = "openai"
    fake_llm.props = recorded.props()  # modalities.vision false: started without --mmproj
    fake_llm.models = recorded.fake_models()
    client = await start_server(workspace, llm_options(fake_llm, provider="openai"))
    sid = await new_session(client, workspace)
    result = await client.request("agent/session/prompt", image_prompt(sid, "describe it"))
    assert result["stopReason"] == "end_turn"
    sent = last_user(fake_llm.chat_requests()[-1].json)
    assert sent["content"].startswith("describe it") and "image_url" not in str(sent)
    assert "not sent: this model cannot see images" in sent["content"]
    told = client.text(sid)
    assert "image not sent: smollm2-135m has no vision support" in told
    assert 'llm.vision = "on"' in told


@pytest.mark.parametrize(("vision", "sent"), [("auto", False), ("on", True)])
async def test_a_server_that_does_not_say_gets_pictures_only_when_the_user_says_so(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, vision: str, sent: bool
) -> None:
    fake_llm.flavor = "openai"  # no /props, no LM Studio API: vLLM and others do not say
    client = await start_server(workspace, llm_options(fake_llm, provider="openai", vision=vision))
    sid = await new_session(client, workspace)
    await client.request("agent/session/prompt", image_prompt(sid, "look"))
    content = last_user(fake_llm.chat_requests()[-1].json)["content"]
    assert isinstance(content, list) is sent
    assert ("has no vision support" in client.text(sid)) is not sent


async def test_lm_studio_vlm_gets_the_picture(start_server: Start, workspace: Path, fake_llm: FakeLLMServer) -> None:
    fake_llm.flavor = "openai"
    fake_llm.models = [FakeModel("qwen2.5-vl-7b")]
    fake_llm.lmstudio_models = [{"id": "qwen2.5-vl-7b", "type": "vlm", "loaded_context_length": 8192}]
    client = await start_server(workspace, llm_options(fake_llm, provider="openai"))
    sid = await new_session(client, workspace)
    await client.request("agent/session/prompt", image_prompt(sid, "look", mime="image/jpeg"))
    content = last_user(fake_llm.chat_requests()[-1].json)["content"]
    # The mime type is what the bytes are, not what the client claimed.
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")


@pytest.mark.parametrize(
    ("data", "mime", "error"),
    [
        ("not base64!!", "image/png", "not valid base64"),
        (base64.b64encode(b"#!/bin/sh\necho hi\n").decode(), "image/png", "is not a PNG, JPEG, GIF or WebP"),
        (base64.b64encode(png(200, 200) + b"\0" * 4096).decode(), "image/png", "over the limit of 2048"),
    ],
    ids=["malformed-base64", "not-a-picture", "oversize"],
)
async def test_a_bad_picture_is_refused_clearly_and_the_server_goes_on(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, data: str, mime: str, error: str
) -> None:
    fake_llm.set_vision(True)
    client = await start_server(workspace, llm_options(fake_llm, imageMaxBytes=2048))
    sid = await new_session(client, workspace)
    with pytest.raises(RpcError) as caught:
        await client.request("agent/session/prompt", image_prompt(sid, "look", data=data, mime=mime))
    assert caught.value.code == -32602 and error in str(caught.value.message)
    assert fake_llm.chat_requests() == []  # nothing reached the model
    result = await client.request("agent/session/prompt", image_prompt(sid, "this one is fine"))
    assert result["stopReason"] == "end_turn"
    assert last_user(fake_llm.chat_requests()[-1].json)["images"] == [PNG64]
