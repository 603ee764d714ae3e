"""Run a provider call and fold its events into what the user would see."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_server.llm.base import ChatRequest, GenerationOptions, Provider, ToolSpec
from agent_server.messages import Finish, Message, StreamEvent, TextDelta, ThinkingDelta, ToolCall, ToolCallEvent

READ_FILE = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}})


def request(text: str = "hi", tools: list[ToolSpec] | None = None, **options: object) -> ChatRequest:
    return ChatRequest(
        model="qwen3:8b",
        messages=[Message(role="user", content=text)],
        tools=tools or [],
        options=GenerationOptions(**options),  # type: ignore[arg-type]
    )


@dataclass
class Outcome:
    events: list[StreamEvent] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, TextDelta))

    @property
    def thinking(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, ThinkingDelta))

    @property
    def calls(self) -> list[ToolCall]:
        return [e.call for e in self.events if isinstance(e, ToolCallEvent)]

    @property
    def finish(self) -> Finish:
        last = self.events[-1]
        assert isinstance(last, Finish)
        return last


async def run(provider: Provider, req: ChatRequest | None = None) -> Outcome:
    out = Outcome()
    async for event in provider.stream_chat(req or request()):
        out.events.append(event)
    return out
