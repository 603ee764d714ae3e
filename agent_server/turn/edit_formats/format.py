"""The edit format seam: what the turn asks of the way a model edits files.

The loop, the context step and the guards ask the turn's format (`registry.of(agent.edit_format)`) and never compare
its name: `tools.py` (native or prompt-based tool calls) and `files.py` (whole files and search/replace blocks written
in the answer, as Aider's) are the ones there are. A new one is a module with one class and its line in `registry.py`
(and its name among `agent.edit_format`'s values in config.py). Which format a model gets is `turn/edit_format.py`'s
choice (the scorecard's measurements).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

from ...messages import Message
from ...tools.base import ToolResult

if TYPE_CHECKING:
    from ..turn import Turn

# What an answer whose calls ran means for the turn: "done" (the answer was the edit: the turn ends once the
# end-of-turn checks pass), "stop" (the turn ends now), None (another round).
AfterCalls = Literal["done", "stop"] | None


class EditFormat(Protocol):
    name: str
    # The edits are written in the answer's text: no tool definitions are sent, every tool of the registry counts as
    # offered (the answer's blocks are read as their calls), and streamed text is never held back as a call.
    edits_in_text: bool
    shows_files: bool  # the request's files are shown in the prompt: an answer has looked at them
    instructions: str  # appended to the system prompt (the same bytes for every request of a session)
    call_noun: str  # what an answer's calls are called in the notes to the model ("tool calls")
    answer_nudge: str  # told once per turn to a tool-free answer that deflects or stops short ("": none)
    fix_ask: str  # how to ask for a small change in one file, `{path}` (after a traced failure; "": none)

    def replay(self, messages: list[Message]) -> list[Message]:
        """The conversation as this format sends it back to the model (native tool calls in a prompt-tools mode are
        `context_step.as_plain_chat`'s, before this)."""
        ...

    def after_calls(self, turn: Turn, answer: Message, results: list[ToolResult]) -> AfterCalls:
        """What the answer means for the turn now that its calls ran with `results` (one per call, in order)."""
        ...
