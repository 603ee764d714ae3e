"""The `tools` edit format: the model edits by calling write_file / edit_file like any tool (native calls, or calls
written in the prompt-tools mode's text), and the turn goes on until an answer makes no call."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...messages import Message
from ...tools.base import ToolResult
from .. import prompts
from .format import AfterCalls

if TYPE_CHECKING:
    from ..turn import Turn


class ToolsFormat:
    name = "tools"
    edits_in_text = False
    shows_files = False
    instructions = ""
    call_noun = "tool calls"
    answer_nudge = ""
    fix_ask = prompts.TOOLS_FIX

    def replay(self, messages: list[Message]) -> list[Message]:
        return messages

    def after_calls(self, turn: Turn, answer: Message, results: list[ToolResult]) -> AfterCalls:
        return None  # the model reads the results and answers again
