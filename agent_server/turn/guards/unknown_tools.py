"""An answer that is a call of something that is not a tool (`{"name": "add", ...}` where add is a function in the
user's file): never the turn's answer. The model gets a short nudge naming the real tools; the call counts toward the
repeated-call guard, so the same wrong call again and again ends the turn like any repeated call."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from ...llm.text_tools import call_shaped
from ...messages import ToolCall
from .guard import Answer, Guard, Verdict

if TYPE_CHECKING:
    from ..turn import Turn

MAX_NUDGES = 3
SHOWN_TOOLS = 12


def unknown_calls(text: str, offered: set[str]) -> list[ToolCall]:
    return [c for c in call_shaped(text) if c.name not in offered]


def nudge_text(calls: list[ToolCall], offered: set[str]) -> str:
    wrong = ", ".join(sorted({f"`{c.name}`" for c in calls}))
    tools = ", ".join(sorted(offered)[:SHOWN_TOOLS])
    return (
        f"{wrong} is not a tool. Your tools are: {tools}. Call one of them with its arguments, or, if you have what "
        "you need, answer in plain words."
    )


def stop_note(calls: list[ToolCall]) -> str:
    wrong = ", ".join(sorted({f"`{c.name}`" for c in calls}))
    return (
        f"Stopped: the model kept calling {wrong}, which is not a tool, after being told so. Send a message to "
        "continue, or rephrase the request (naming the file to read helps)."
    )


class UnknownTools(Guard):
    """An answer without calls whose text calls a name that is not one of the tools offered: nudged with the real
    tools (capped); the same wrong call again and again ends the turn like any repeated call."""

    async def tool_free_answer(self, turn: Turn, answer: Answer) -> Verdict | None:
        if not answer.offered:
            return None
        # (off the event loop, as the recovery: the answer's text is as long as the model likes)
        calls = await asyncio.to_thread(unknown_calls, answer.message.content, answer.offered)
        if not calls:
            return None
        verdict, _culprit = turn.repeats.check(calls)
        if verdict == "stop" or not turn.take("unknown_tool", MAX_NUDGES):
            return Verdict(note=f"\n\n{stop_note(calls)}", stop="max_turn_requests")
        return Verdict(nudge=nudge_text(calls, answer.offered), require_tool=True)
