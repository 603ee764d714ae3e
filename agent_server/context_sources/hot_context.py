"""Seed 001's hot context: a short note, added to each prompt, naming the files this session read and changed and
the plan items still open, so a small model that lost them to compaction still knows where it was.

It is written into the user's message when the turn starts and stored with it, so every later request repeats
the same bytes: the prompt prefix the LLM server caches stays stable (a note that moved or changed on every
round would make the server re-read everything after it). Within a turn the model sees its own calls anyway.
"""

from __future__ import annotations

from pydantic import ValidationError

from ..context import estimate_text
from ..messages import Message
from ..tools.builtin import named
from ..tools.planning import UpdatePlan, UpdatePlanArgs

TAG = "session-context"


def _recent(names: list[str], limit: int) -> list[str]:
    """Most recent first, each once."""
    seen: list[str] = []
    for name in reversed(names):
        if name not in seen:
            seen.append(name)
    return seen[:limit]


def open_plan_items(history: list[Message]) -> list[str]:
    """The open items of the latest plan the model recorded (a call the tool refused recorded none)."""
    for message in reversed(history):
        for call in reversed(message.tool_calls):
            if call.name != UpdatePlan.name:
                continue
            try:
                plan = UpdatePlanArgs.model_validate(call.arguments)
            except ValidationError:
                continue
            return [e.content for e in plan.entries if e.status != "completed" and e.content]
    return []


def hot_context(history: list[Message], budget_tokens: int) -> str | None:
    """The note for the next prompt, within `budget_tokens`, or None when there is nothing to say."""
    if budget_tokens <= 0:
        return None
    reads, changes = named(lambda d: d.touches == "reads"), named(lambda d: d.touches == "writes")
    read: list[str] = []
    changed: list[str] = []
    for message in history:
        for call in message.tool_calls:
            path = call.arguments.get("path")
            if not isinstance(path, str):
                continue
            if call.name in reads:
                read.append(path)
            elif call.name in changes:
                changed.append(path)
    plan = open_plan_items(history)
    if not (read or changed or plan):
        return None
    for limit in (12, 8, 5, 3, 1):
        lines = []
        if changed:
            lines.append("Files changed in this session: " + ", ".join(_recent(changed, limit)))
        if read:
            lines.append("Files read in this session: " + ", ".join(_recent(read, limit)))
        if plan:
            lines.append("Open plan items: " + "; ".join(item[:120] for item in plan[:limit]))
        note = f"<{TAG}>\n" + "\n".join(lines) + f"\n</{TAG}>"
        if estimate_text(note) <= budget_tokens:
            return note
    return None


def with_hot_context(prompt: str, history: list[Message], budget_tokens: int) -> str:
    note = hot_context(history, budget_tokens)
    return prompt if note is None else f"{prompt}\n\n{note}"
