"""Automatic context: before the first round, the index's best matches for the prompt, within a token budget.

It enters the history as a `codebase_search` call and its result, so the model sees where it came from, the
client shows it as a tool card, and replays and later rounds stay consistent.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from .. import acp
from ..context import estimate_text
from ..messages import Message, ToolCall
from ..tools.codebase import CodebaseSearch

MAX_HITS = 8


class UpdateSink(Protocol):
    async def send(self, update: acp.SessionUpdate) -> None: ...


async def gather(index: Any, query: str, budget_tokens: int) -> str | None:
    """The best chunks for `query` that fit in `budget_tokens`, as numbered excerpts; None if nothing matched."""
    hits = await index.search(query, MAX_HITS)
    parts: list[str] = []
    used = 0
    for hit in hits:
        lines = hit.snippet.splitlines()
        block = f"{hit.path}:{hit.start_line}-{hit.end_line}\n" + "\n".join(
            f"{hit.start_line + i}\t{line}" for i, line in enumerate(lines)
        )
        cost = estimate_text(block)
        if used + cost > budget_tokens:
            continue
        parts.append(block)
        used += cost
    if not parts:
        return None
    return "Code from the workspace index that may be relevant:\n\n" + "\n\n".join(parts)


def as_messages(query: str, text: str) -> tuple[Message, Message, ToolCall]:
    call = ToolCall(id=f"auto_{uuid.uuid4().hex[:10]}", name=CodebaseSearch.name, arguments={"query": query[:300]})
    assistant = Message(role="assistant", tool_calls=[call], meta={"auto_context": True})
    result = Message(role="tool", content=text, tool_call_id=call.id, tool_name=CodebaseSearch.name)
    return assistant, result, call


def updates(call: ToolCall, text: str) -> list[acp.SessionUpdate]:
    return [
        acp.ToolCallStart(
            tool_call_id=call.id,
            title="Workspace context for this prompt",
            kind=CodebaseSearch.kind,
            raw_input=call.arguments,
        ),
        acp.ToolCallProgress(
            tool_call_id=call.id, status="completed", content=[acp.Content(content=acp.TextContent(text=text))]
        ),
    ]


async def enter(
    index: Any, text: str, budget_tokens: int, record: Callable[[Message], Awaitable[None]], relay: UpdateSink
) -> None:
    """index.auto_context: the index's best matches for the prompt enter the turn as a search and its result."""
    if index is None:
        return
    found = await gather(index, text, budget_tokens)
    if found is None:
        return
    assistant, result, call = as_messages(text, found)
    await record(assistant)
    await record(result)
    for update in updates(call, found):
        await relay.send(update)
