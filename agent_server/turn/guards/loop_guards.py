"""What the turn does when the model loops: a repeating stream is cut, a repeated tool call is nudged, then cut, and
the same look again gets a pointer to the result it already has.

Stop reasons (ACP has no "loop" reason; these are the honest nearest ones):
- a looping stream ends the turn with `max_tokens`: the answer was cut before the model finished it, as a token
  limit would have cut it, only much earlier;
- the fourth identical tool call in a row (or a cycle of several calls made a third time) ends the turn with
  `max_turn_requests`: the agent stops asking the model for more rounds, as the round limit would, only much earlier.
Both leave a visible note in the chat and a consistent history (every recorded call has a result).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...messages import Message, Repetition, ToolCall
from ...tools.base import Tool, ToolResult
from .guard import Answer, Guard, Verdict
from .repeated_calls import NOT_RUN
from .repetition import trimmed

if TYPE_CHECKING:
    from ..turn import Turn


class LoopingStream(Guard):
    """The stream was stopped by the repetition guard (model_call.py watches it): keep the answer up to the loop,
    tell the user, end the turn."""

    async def after_answer(self, turn: Turn, answer: Answer) -> Verdict | None:
        reply = answer.reply
        loop = reply.loop
        if loop is None:
            return None
        message = reply.message
        if reply.loop_in == "thinking":
            message.thinking = trimmed(message.thinking, loop)
        else:
            message.content = trimmed(message.content, loop)
        message.tool_calls = []
        message.repetition = Repetition(loop.span[:200], loop.repeats, reply.loop_in)
        await turn.record(message)
        note = (
            f"Stopped early: {loop.describe()} (a generation loop). Send a message to continue, or rephrase the "
            "request; a larger model or a lower temperature loops less."
        )
        return Verdict(note=f"\n\n[agent-server: {note}]", stop="max_tokens")


class RepeatingCalls(Guard):
    """The reply's calls run unless they repeat one call a fourth time in a row (or a cycle a third time); the call
    that repeats a third time runs, and the model is told after it."""

    async def before_calls(self, turn: Turn, answer: Answer) -> Verdict | None:
        calls = answer.message.tool_calls
        verdict, culprit = turn.repeats.check(calls)
        turn.repeats.nudge_due = culprit if verdict == "nudge" else None
        if verdict != "stop" or culprit is None:
            return None
        for call in calls:
            not_run = Message(role="tool", content=NOT_RUN, tool_call_id=call.id, tool_name=call.name, is_error=True)
            await turn.record(not_run)
        return Verdict(note=f"\n\n{turn.repeats.stop_note(culprit)}", stop="max_turn_requests")

    async def after_calls(self, turn: Turn, answer: Answer) -> Verdict | None:
        culprit, turn.repeats.nudge_due = turn.repeats.nudge_due, None
        # A remark: what else the guards and the edit format make of the answer still holds.
        return None if culprit is None else Verdict(nudge=turn.repeats.nudge_text(culprit), again=False)


class LookedBefore(Guard):
    """The same read or search as before, its result unchanged and still in the prompt: a pointer to it instead of
    the whole result again (repeated_looks.py)."""

    async def after_tool_result(self, turn: Turn, call: ToolCall, tool: Tool, result: ToolResult) -> ToolResult:
        if result.is_error:
            return result
        seen = turn.looks.result(call, tool.kind, result.text, turn.round, turn.prompt)
        return result if seen is result.text else ToolResult(text=seen)
