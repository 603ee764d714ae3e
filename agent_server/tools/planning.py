"""The tools that talk to the user rather than the workspace: update_plan, ask_question, task_completion."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from .. import acp
from .base import ToolContext, ToolResult

log = logging.getLogger(__name__)

_MARK = {"completed": "[x]", "in_progress": "[~]", "pending": "[ ]"}


async def update_plan(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    entries = [
        acp.PlanEntry(content=e["content"], priority=e.get("priority", "medium"), status=e.get("status", "pending"))
        for e in args["entries"]
    ]
    done = sum(e.status == "completed" for e in entries)
    lines = [f"{_MARK[e.status]} {e.content}" for e in entries]
    text = f"Plan updated ({done}/{len(entries)} done):\n" + "\n".join(lines)
    return ToolResult(text=text, plan=entries)


async def ask_question(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    question: str = args["question"].strip()
    options: list[str] = [o for o in args.get("options") or [] if o.strip()]
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


async def task_completion(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    summary: str = args["summary"].strip()
    return ToolResult(
        text=f"Task complete: {summary}",
        content=[acp.Content(content=acp.text_block(summary))],
        ends_turn=True,
    )
