"""One model call: stream the provider's events to the client and assemble the assistant message."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..llm.base import ChatRequest, Provider
from ..messages import FinishReason, Message, TextDelta, ThinkingDelta, ToolCall, ToolCallEvent, Usage
from .relay import UpdateRelay


@dataclass
class ModelReply:
    message: Message
    finish: FinishReason = "stop"
    usage: Usage = field(default_factory=Usage)


async def call_model(provider: Provider, request: ChatRequest, relay: UpdateRelay, reply: ModelReply) -> None:
    """Stream one call into `reply`, which holds the partial answer if the call is cancelled or fails."""
    text: list[str] = []
    thinking: list[str] = []
    calls: list[ToolCall] = []
    stream = provider.stream_chat(request)
    try:
        async for event in stream:
            if isinstance(event, TextDelta):
                text.append(event.text)
                await relay.delta("text", event.text)
            elif isinstance(event, ThinkingDelta):
                thinking.append(event.text)
                await relay.delta("thinking", event.text)
            elif isinstance(event, ToolCallEvent):
                calls.append(event.call)
            else:
                reply.finish = event.reason
                reply.usage = event.usage
    finally:
        # Closing the generator closes the HTTP stream, so the server stops generating (also on cancel).
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()
        reply.message.content = "".join(text)
        reply.message.thinking = "".join(thinking)
        reply.message.tool_calls = calls
        await relay.flush()
