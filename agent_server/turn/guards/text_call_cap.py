"""The calls read from one answer's text are capped: only the first `agent.max_text_calls` run.

Native tool calls come through the model server's parser; calls written as text, and the edit blocks of the `files`
edit format, are read by us from whatever the model wrote, and nothing limited how many: one answer of 2,000 blocks
wrote 2,000 files under `write_file = "allow"`. The calls past the cap are not applied. After the ones that ran, the
model reads how many were not (as the user's message, so it can send them again) and the turn goes on, where an
applied `files` answer would have ended it: the round limit bounds a model that keeps sending too many.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...messages import ToolCall
from .guard import Answer, Guard, Verdict

if TYPE_CHECKING:
    from ..turn import Turn


def capped(calls: list[ToolCall], cap: int) -> tuple[list[ToolCall], int]:
    """The calls to run and how many more the answer held."""
    return calls[:cap], max(0, len(calls) - cap)


def note(ran: int, not_run: int, noun: str) -> str:
    return (
        f"Only the first {ran} of the {ran + not_run} {noun} in your answer were applied (at most {ran} per answer); "
        f"the other {not_run} were not applied. Send the ones still needed in your next answer."
    )


class TextCallCap(Guard):
    """After the answer's calls ran: if some were cut, the model (and the user) is told, and asked again."""

    async def after_calls(self, turn: Turn, answer: Answer) -> Verdict | None:
        not_run = answer.message.calls_not_run
        if not not_run:
            return None
        return Verdict(nudge=note(len(answer.message.tool_calls), not_run, answer.format.call_noun))
