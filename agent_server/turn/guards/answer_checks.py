"""What a tool-free answer earns by its analysis (analysis.py, seeds 002 and 003): an answer cut at the token limit
ends the turn, an empty one is asked again (twice in a row: a last summary), one that deflects or announces work and
stops is nudged to act, and a task session is reminded to finish with task_completion; each nudge capped per turn."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...tools.kinds import ACTING_KINDS
from .. import prompts
from .guard import Answer, Guard, Verdict

if TYPE_CHECKING:
    from ..turn import Turn

EMPTY = "empty_answers"  # turn.nudges: the tool-free answers in a row that said nothing


class CutShort(Guard):
    """An answer the token limit cut ends the turn as `max_tokens` (the user sees where it stopped)."""

    async def tool_free_answer(self, turn: Turn, answer: Answer) -> Verdict | None:
        return Verdict(stop="max_tokens") if answer.reply.finish == "length" else None


class EmptyAnswers(Guard):
    """An empty answer is asked to continue; `agent.empty_answer_limit` of them in a row get one last call without
    tools that must summarize the work. Any answer with calls or with words starts the count again."""

    async def before_calls(self, turn: Turn, answer: Answer) -> Verdict | None:
        turn.nudges[EMPTY] = 0
        return None

    async def tool_free_answer(self, turn: Turn, answer: Answer) -> Verdict | None:
        if answer.analysis.verdict != "empty":
            turn.nudges[EMPTY] = 0
            return None
        empty = turn.nudges.get(EMPTY, 0) + 1
        turn.nudges[EMPTY] = empty
        if empty >= turn.settings.agent.empty_answer_limit:
            return Verdict(summarize=prompts.FORCE_SUMMARY, stop="end_turn")
        return Verdict(nudge=prompts.CONTINUE_NUDGE)


class FormatNudge(Guard):
    """In an edit format that has one (files: "answer with the change"), a deflecting or unfinished answer is told
    how to answer, once per turn, before the generic nudges."""

    async def tool_free_answer(self, turn: Turn, answer: Answer) -> Verdict | None:
        nudge = answer.format.answer_nudge
        if nudge and answer.analysis.verdict in ("deflection", "incomplete") and turn.take("edit_format", 1):
            return Verdict(nudge=nudge)
        return None


class Deflection(Guard):
    """ "I cannot access your files": the model is told which tools it has, and the next request requires one."""

    async def tool_free_answer(self, turn: Turn, answer: Answer) -> Verdict | None:
        if answer.analysis.verdict != "deflection":
            return None
        if not turn.take("deflection", turn.settings.agent.deflection_retries):
            return None
        tools = ", ".join(sorted(turn.tools.names())[:8])
        return Verdict(nudge=prompts.DEFLECTION_NUDGE.format(tools=tools), require_tool=True)


class AnnouncedStep(Guard):
    """An answer that announces work and stops is told to continue, unless the turn can change nothing (plan and ask
    modes): there, saying what would be done next is the plan it was asked for, not an action it forgot to take."""

    async def tool_free_answer(self, turn: Turn, answer: Answer) -> Verdict | None:
        if answer.analysis.verdict != "incomplete" or _read_only(turn):
            return None
        if not turn.take("continue", turn.settings.agent.continuation_nudges):
            return None
        return Verdict(nudge=prompts.CONTINUE_NUDGE)


class TaskReminder(Guard):
    """A task session (`agent.profile = "task"`) ends only with task_completion: a tool-free answer is reminded."""

    async def tool_free_answer(self, turn: Turn, answer: Answer) -> Verdict | None:
        cfg = turn.settings.agent
        if cfg.profile == "task" and turn.take("reminder", cfg.no_tool_reminders):
            return Verdict(nudge=prompts.NO_TOOL_REMINDER)
        return None


def _read_only(turn: Turn) -> bool:
    tools = [turn.tools.get(name) for name in turn.tools.names()]
    return not any(t is not None and t.kind in ACTING_KINDS for t in tools)
