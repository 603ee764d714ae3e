"""The wait before the first token is shown (issue 27): a server that stays silent gets a waiting note; one that
answers at once gets none; llama.cpp's progress becomes one status line that ends before the answer."""

from __future__ import annotations

from typing import Any

import pytest

from agent_server import acp
from agent_server.llm.openai_compat import OpenAIProvider
from agent_server.messages import Message
from agent_server.turn import prefill_status
from agent_server.turn.model_call import ModelReply, call_model
from agent_server.turn.relay import UpdateRelay
from tests.fakes import recorded
from tests.fakes.fake_llm import Delay, FakeLLMServer, Raw, Reply, Text
from tests.llm.helpers import request


class Recorder:
    def __init__(self) -> None:
        self.updates: list[acp.SessionUpdate] = []

    async def session_update(self, session_id: str, update: acp.SessionUpdate) -> None:
        self.updates.append(update)

    def stream(self) -> list[tuple[str, str]]:
        out = []
        for u in self.updates:
            if isinstance(u, acp.AgentThoughtChunk | acp.AgentMessageChunk) and isinstance(u.content, acp.TextContent):
                out.append(("thought" if isinstance(u, acp.AgentThoughtChunk) else "text", u.content.text))
        return out


async def answer(fake: FakeLLMServer, reply: Reply, **options: Any) -> list[tuple[str, str]]:
    fake.script(reply)
    client = Recorder()
    provider = OpenAIProvider(fake.url, timeout_s=10, connect_timeout_s=2)
    try:
        relay = UpdateRelay(client, "s")  # type: ignore[arg-type]
        await call_model(provider, request(**options), relay, ModelReply(Message(role="assistant")), status=True)
    finally:
        await provider.aclose()
    return client.stream()


async def test_a_silent_server_gets_a_waiting_note(fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefill_status, "WAIT_NOTE_S", 0.05)
    shown = await answer(fake_llm, Reply(steps=[Delay(1.0), Text("Hi.")]))
    assert shown[0] == ("thought", prefill_status.WAITING) and shown[-1] == ("text", "Hi.")


async def test_a_prompt_answer_gets_no_note(fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefill_status, "WAIT_NOTE_S", 30.0)
    assert await answer(fake_llm, Reply.text("Hi.")) == [("text", "Hi.")]


async def test_progress_is_one_status_line_before_the_answer(
    fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(prefill_status, "WAIT_NOTE_S", 0.05)
    fake_llm.props = recorded.props()
    chunks = [c for c in (recorded.DIR / "llamacpp_progress.sse").read_text().split("\n\n") if "prompt_progress" in c]
    # A slow batch between two progress reports: the server is not silent, so no waiting note.
    steps = [Raw(chunks[0] + "\n\n"), Delay(0.3), *(Raw(c + "\n\n") for c in chunks[1:]), Text("Hi.")]
    shown = await answer(fake_llm, Reply(steps=steps), progress=True)
    thoughts = "".join(text for kind, text in shown if kind == "thought")
    assert thoughts == "\n[agent-server: reading the prompt (1,594 tokens)… 16%… 32%… 48%… 64%… 80%… 96%… done]\n"
    assert shown[-1] == ("text", "Hi.")
