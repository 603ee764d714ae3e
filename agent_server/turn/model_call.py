"""One model call: stream the provider's events to the client and assemble the assistant message."""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import acp
from ..llm.base import ChatRequest, Provider
from ..messages import (
    FinishReason,
    Message,
    Notice,
    PromptProgress,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    ToolCallEvent,
    Usage,
)
from ..turn.prefill_status import PrefillStatus
from .guards.call_holdback import CallHoldback
from .guards.repetition import Loop, RepetitionGuard
from .relay import UpdateRelay


@dataclass
class ModelReply:
    message: Message
    finish: FinishReason = "stop"
    usage: Usage = field(default_factory=Usage)
    loop: Loop | None = None  # set when the repetition guard stopped the stream
    loop_in: str = "text"  # "text" | "thinking"


def status_line(notice: Notice) -> acp.AgentThoughtChunk:
    # Not worded as agent-server's notes to the model ("[agent-server: ..."), which ACP clients do not show: the user
    # is the one waiting.
    return acp.AgentThoughtChunk(content=acp.TextContent(text=f"\n[waiting: {notice.text}]\n"))


async def call_model(
    provider: Provider,
    request: ChatRequest,
    relay: UpdateRelay,
    reply: ModelReply,
    guard: bool = False,
    hold: CallHoldback | None = None,
    status: bool = False,
) -> None:
    """Stream one call into `reply`, which holds the partial answer if the call is cancelled or fails. With `guard`,
    a stream that loops (`repetition.py`) is closed early and `reply.loop` says so. With `hold`, text that may be a
    tool call written as text reaches the client only once it is known not to be one. With `status`, the wait
    before the first token is shown (prompt-reading progress, or a note when the server stays silent)."""
    guards = {"text": RepetitionGuard(), "thinking": RepetitionGuard()} if guard else None
    prefill = PrefillStatus(relay) if status else None
    text: list[str] = []
    thinking: list[str] = []
    calls: list[ToolCall] = []
    stream = provider.stream_chat(request)
    push = relay.push
    try:
        # Runs once per token: exact type checks and a synchronous push, awaiting only when the kind changes.
        async for event in stream:
            kind = type(event)
            if kind is Notice:  # a rate limit waited out, a model loading: a status line, never the answer
                await relay.send(status_line(event))  # type: ignore[arg-type]  # `kind is` narrows nothing
                continue
            if prefill is not None:
                if kind is PromptProgress:
                    await prefill.progress(event)  # type: ignore[arg-type]
                    continue
                await prefill.answer_started()
                prefill = None
            if kind is TextDelta or kind is ThinkingDelta:
                delta: TextDelta | ThinkingDelta = event  # type: ignore[assignment]
                (text if kind is TextDelta else thinking).append(delta.text)
                shown = hold.feed(delta.text) if hold is not None and kind is TextDelta else delta.text
                if shown and not push(delta.type, shown):
                    await relay.delta(delta.type, shown)
                if guards is not None and (loop := guards[delta.type].feed(delta.text)) is not None:
                    reply.loop, reply.loop_in = loop, delta.type
                    break
            elif isinstance(event, TextDelta | ThinkingDelta):  # a subclass: same meaning, slower path
                (text if isinstance(event, TextDelta) else thinking).append(event.text)
                await relay.delta(event.type, event.text)
            elif isinstance(event, ToolCallEvent):
                calls.append(event.call)
            elif isinstance(event, PromptProgress | Notice):
                continue
            else:
                reply.finish = event.reason
                reply.usage = event.usage
    finally:
        if prefill is not None:
            await prefill.close()
        # Closing the generator closes the HTTP stream, so the server stops generating (also on cancel).
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:
            await aclose()
        reply.message.content = "".join(text)
        reply.message.thinking = "".join(thinking)
        reply.message.tool_calls = calls
        if hold is not None and (rest := hold.close()):
            await relay.delta("text", rest)
        await relay.flush()


async def text_of(provider: Provider, request: ChatRequest) -> str:
    """The whole text of one answer that nobody watches stream (a summary, a candidate line): no relay, no guards."""
    parts: list[str] = []
    async for event in provider.stream_chat(request):
        if isinstance(event, TextDelta):
            parts.append(event.text)
    return "".join(parts)
