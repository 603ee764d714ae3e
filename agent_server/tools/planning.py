"""The tools that talk to the user rather than the workspace: update_plan, ask_question, task_completion."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal

from .. import acp
from .base import LeanForm, ToolContext, ToolResult
from .definition import BuiltinTool, ToolArgs, lean_object

log = logging.getLogger(__name__)

_MARK = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}


class PlanEntryArgs(ToolArgs):
    content: str
    priority: Literal["high", "medium", "low"] | None = None
    status: Literal["pending", "in_progress", "completed"] | None = None


class UpdatePlanArgs(ToolArgs):
    entries: list[PlanEntryArgs]


class UpdatePlan(BuiltinTool[UpdatePlanArgs]):
    name = "update_plan"
    description = "Record or update your step-by-step plan; send the whole list each time with each status."
    args = UpdatePlanArgs
    kind = "think"
    policy = "allow"
    lean = LeanForm(
        "Record your plan (the whole list each time).",
        lean_object([], entries={"type": "array", "items": lean_object(["content", "status"])}),
        90,
        only_if_named=True,
    )

    def title(self, args: dict[str, Any]) -> str:
        return "Update plan"

    async def run(self, ctx: ToolContext, args: UpdatePlanArgs) -> ToolResult:
        entries = [
            acp.PlanEntry(content=e.content, priority=e.priority or "medium", status=e.status or "pending")
            for e in args.entries
        ]
        done = sum(e.status == "completed" for e in entries)
        lines = [f"{_MARK[e.status]} {e.content}" for e in entries]
        text = f"Plan updated ({done}/{len(entries)} done):\n" + "\n".join(lines)
        return ToolResult(text=text, plan=entries)


class AskQuestionArgs(ToolArgs):
    question: str
    options: list[str] | None = None
    """Suggested answers."""


class AskQuestion(BuiltinTool[AskQuestionArgs]):
    name = "ask_question"
    description = "Ask the user a question and end your turn; their answer comes as the next message."
    args = AskQuestionArgs
    kind = "other"
    policy = "allow"
    loop_breaking = True
    lean = LeanForm("Ask the user a question; ends your turn.", lean_object(["question"]), 100, only_if_named=True)

    def title(self, args: dict[str, Any]) -> str:
        return "Question"

    async def run(self, ctx: ToolContext, args: AskQuestionArgs) -> ToolResult:
        question = args.question.strip()
        options = [o for o in args.options or [] if o.strip()]
        text = question + "".join(f"\n{n}. {o}" for n, o in enumerate(options, start=1))
        answer = await _ask_now(ctx, question, options)
        if answer is not None:  # answered in the client's own question UI: the turn goes on with it
            return ToolResult(
                text=f"{text}\nThe user answered: {answer}",
                content=[acp.Content(content=acp.text_block(f"{text}\n\n> {answer}"))],
                raw_output={"question": question, "options": options, "answer": answer},
            )
        return ToolResult(
            text=text,
            content=[acp.Content(content=acp.text_block(text))],
            ends_turn=True,
            raw_output={"question": question, "options": options},
        )


async def _ask_now(ctx: ToolContext, question: str, options: list[str]) -> str | None:
    asker = ctx.client.features.questions
    if asker is None:
        return None
    try:
        return await asker.ask_user(ctx.session_id, question, options, ctx.call_id)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # no answer: the question ends the turn, as with a client that cannot ask
        log.warning("could not ask the user: %s", exc)
        return None


class TaskCompletionArgs(ToolArgs):
    summary: str


class TaskCompletion(BuiltinTool[TaskCompletionArgs]):
    name = "task_completion"
    description = "Call when the task is finished, with a short summary of what you did; this ends your turn."
    args = TaskCompletionArgs
    kind = "other"
    policy = "allow"
    loop_breaking = True
    lean = LeanForm("Finish the task with a summary.", lean_object(["summary"]), 110, only_if_named=True)

    def title(self, args: dict[str, Any]) -> str:
        return "Task complete"

    async def run(self, ctx: ToolContext, args: TaskCompletionArgs) -> ToolResult:
        summary = args.summary.strip()
        return ToolResult(
            text=f"Task complete: {summary}",
            content=[acp.Content(content=acp.text_block(summary))],
            ends_turn=True,
        )
