"""What the turn loop does when the model loops: a repeating stream is cut, a repeated tool call is nudged, then cut.

Stop reasons (ACP has no "loop" reason; these are the honest nearest ones):
- a looping stream ends the turn with `max_tokens`: the answer was cut before the model finished it, as a token
  limit would have cut it, only much earlier;
- the fourth identical tool call in a row (or a cycle of several calls made a third time) ends the turn with
  `max_turn_requests`: the agent stops asking the model for more rounds, as the round limit would, only much earlier.
Both leave a visible note in the chat and a consistent history (every recorded call has a result).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from ... import acp
from ...messages import Message, ToolCall
from ..model_call import ModelReply
from .repeated_calls import NOT_RUN
from .repetition import trimmed

if TYPE_CHECKING:
    from ..turn import StopReason, Turn

CallTools = Callable[["Turn", list[ToolCall]], Awaitable[bool]]


async def end_looping_answer(turn: Turn, reply: ModelReply) -> StopReason:
    """The stream was stopped by the repetition guard: keep the answer up to the loop, tell the user, end the turn."""
    loop = reply.loop
    assert loop is not None
    message = reply.message
    if reply.loop_in == "thinking":
        message.thinking = trimmed(message.thinking, loop)
    else:
        message.content = trimmed(message.content, loop)
    message.tool_calls = []
    message.meta["repetition"] = {"span": loop.span[:200], "repeats": loop.repeats, "in": reply.loop_in}
    await turn.record(message)
    note = (
        f"Stopped early: {loop.describe()} (a generation loop). Send a message to continue, or rephrase the "
        "request; a larger model or a lower temperature loops less."
    )
    await turn.relay.send(acp.AgentMessageChunk(content=acp.TextContent(text=f"\n\n[agent-server: {note}]")))
    return "max_tokens"


async def run_calls_guarded(turn: Turn, calls: list[ToolCall], call_tools: CallTools) -> StopReason | None:
    """Run the reply's calls unless they repeat one call a fourth time in a row; None = the turn goes on."""
    verdict, culprit = turn.repeats.check(calls)
    if verdict == "stop" and culprit is not None:
        for call in calls:
            await turn.record(Message(role="tool", content=NOT_RUN, tool_call_id=call.id, tool_name=call.name))
        await turn.relay.send(
            acp.AgentMessageChunk(content=acp.TextContent(text=f"\n\n{turn.repeats.stop_note(culprit)}"))
        )
        return "max_turn_requests"
    if await call_tools(turn, calls):
        return "end_turn"
    if verdict == "nudge" and culprit is not None:
        nudge = turn.repeats.nudge_text(culprit)
        await turn.record(Message(role="user", content=nudge, meta={"nudge": True}))
        await turn.relay.send(acp.AgentThoughtChunk(content=acp.TextContent(text=f"\n[agent-server: {nudge}]\n")))
    return None
