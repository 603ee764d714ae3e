"""Reading an answer: the tool calls the model wrote as text recovered (offered names only), every answer's calls
capped at `agent.max_text_calls`, their ids made unique, and the answer recorded."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ..llm.base import ChatRequest
from ..messages import Message, ToolCall
from .edit_formats.format import EditFormat
from .guards.guard import Answer
from .guards.text_call_cap import capped

if TYPE_CHECKING:
    from .turn import Turn


async def read_answer(turn: Turn, answer: Answer) -> None:
    """The answer's calls, as it made them or wrote them, capped and with unique ids; then it is recorded."""
    answer.offered = await recover(turn, answer.message, answer.request, answer.format)
    unique_ids(answer.message.tool_calls, turn.session.history)
    await turn.record(answer.message)


def offered_names(turn: Turn, request: ChatRequest, fmt: EditFormat) -> set[str]:
    # Prompt tool mode and a format whose edits are written in the answer send no `tools`: the offered names are the
    # registry's (the system prompt lists them, or the answer's file blocks become write_file / edit_file calls).
    offered = turn.context.prompt_tools or fmt.edits_in_text
    return {spec.name for spec in request.tools} or (set(turn.tools.names()) if offered else set())


async def recover(turn: Turn, message: Message, request: ChatRequest, fmt: EditFormat) -> set[str]:
    """Tool calls the model wrote as text instead of emitting them (only names we offered count). Returns the names
    offered to the model (empty when this turn does not recover calls: no recovery, or no tools offered). Native
    calls are capped like recovered ones (`agent.max_text_calls` per answer): a server's parser is no bound either."""
    if len(message.tool_calls) > turn.settings.agent.max_text_calls:
        message.tool_calls, message.calls_not_run = capped(message.tool_calls, turn.settings.agent.max_text_calls)
    names = offered_names(turn, request, fmt)
    if turn.recover_calls is None or not names:
        return set()
    if message.tool_calls:
        return names
    try:  # off the event loop: the text is the model's and as long as it likes (a cancel is answered meanwhile)
        calls, not_run = await asyncio.to_thread(turn.recover_calls, message.content, names)
    except asyncio.CancelledError:
        message.interrupted = "cancelled"
        await turn.record(message)  # the answer the user saw stays in the history; none of its calls ran
        raise
    if calls:
        message.tool_calls = calls
        message.recovered_tool_calls = True
        if not_run:
            message.calls_not_run = not_run
    return names


def unique_ids(calls: list[ToolCall], history: list[Message]) -> None:
    """Servers may reuse tool-call ids (a counter per reply); the client and the history need them unique."""
    seen = {c.id for m in history for c in m.tool_calls}
    for call in calls:
        base = call.id or "call"
        candidate, n = base, 1
        while candidate in seen:
            n += 1
            candidate = f"{base}_{n}"
        call.id = candidate
        seen.add(candidate)
