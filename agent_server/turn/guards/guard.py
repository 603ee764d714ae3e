"""The guard seam: each small-model guard implements the hook points it needs; the loop asks every guard of
`registry.GUARDS`, in that order, at each point, and does what their verdicts say (`loop.heed`).

Once, before the turn's first request: `at_start(turn)`: a verdict's nudge goes to the model with the user's request.
The hook points, in the order a round meets them:
- `before_request(turn, request)`: the request about to be sent; a guard may change its options;
- `after_reply(turn, answer)`: the reply as it came, before the server's counts are believed: a verdict drops it
  and asks again;
- `after_answer(turn, answer)`: the answer, before the calls in it are read;
- `before_calls(turn, answer)`: an answer with calls, before they run: a verdict runs none of them;
- `after_tool_result(turn, call, tool, result)`: each call's result, before the model and the user see it: the
  result they get instead;
- `after_calls(turn, answer)`: the calls ran (`answer.results`), before the edit format judges the answer;
- `tool_free_answer(turn, answer)`: an answer without calls, before it ends the turn;
- `at_end(turn)`: the model is done: a verdict sends it back to work.
Once, as the turn ends (however it ends, but cancelled): `at_close(turn, stop)`: a last look at what it left.
The first verdict at a point that asks again or ends the turn is the last one asked there (a remark, `again=False`,
lets the guards after it speak). A guard keeps its counts for the turn in `turn.nudges` (`turn.take` caps a path).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...llm.base import ChatRequest
from ...messages import Message, NudgeKind, ToolCall
from ...tools.base import Tool, ToolResult
from ..edit_formats.format import EditFormat
from ..model_call import ModelReply
from .analysis import Analysis, analyze

if TYPE_CHECKING:
    from ..turn import StopReason, Turn


@dataclass(frozen=True)
class Verdict:
    """What a guard decided. The loop records `nudge` as the user's next message and shows it as a note, shows `note`
    in the chat as the agent's message, then ends the turn with `stop` or asks the model again."""

    nudge: str = ""
    require_tool: bool = False  # the next request must be answered with a tool call
    note: str = ""
    stop: StopReason | None = None
    again: bool = True  # False: a remark; the guards after this one at the same point still have their say
    summarize: str = ""  # before the turn stops: one last answer without tools, asked for with this text
    quiet: bool = False  # the nudge is not shown to the user, who saw why (the check's own card)
    kind: NudgeKind = "guard"  # what the nudge message is (`Message.nudge`): a guard's, a check's output, a trace


@dataclass
class Answer:
    """One answer as the guards see it: the reply, the request it answers, the turn's edit format, the tool names
    its text was read for (`offered`, empty when it was not), and its calls' results once they ran."""

    reply: ModelReply
    request: ChatRequest
    format: EditFormat
    offered: set[str] = field(default_factory=set)
    results: list[ToolResult] = field(default_factory=list)

    @property
    def message(self) -> Message:
        return self.reply.message

    @functools.cached_property
    def analysis(self) -> Analysis:
        """The answer's text classified (analysis.py): read by several guards, computed once."""
        return analyze(self.message.content)


class Guard:
    """A small-model guard: the hook points it implements (see the module's docstring); the others do nothing."""

    async def at_start(self, turn: Turn) -> Verdict | None:
        return None

    async def before_request(self, turn: Turn, request: ChatRequest) -> None:
        return None

    async def after_reply(self, turn: Turn, answer: Answer) -> Verdict | None:
        return None

    async def after_answer(self, turn: Turn, answer: Answer) -> Verdict | None:
        return None

    async def before_calls(self, turn: Turn, answer: Answer) -> Verdict | None:
        return None

    async def after_tool_result(self, turn: Turn, call: ToolCall, tool: Tool, result: ToolResult) -> ToolResult:
        return result

    async def after_calls(self, turn: Turn, answer: Answer) -> Verdict | None:
        return None

    async def tool_free_answer(self, turn: Turn, answer: Answer) -> Verdict | None:
        return None

    async def at_end(self, turn: Turn) -> Verdict | None:
        return None

    async def at_close(self, turn: Turn, stop: StopReason) -> None:
        return None
