"""Every round: tool results older than the last N turns are cut to a short head plus a marker."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace

from ..messages import Message


def turn_starts(messages: Sequence[Message]) -> list[int]:
    """Indexes of the user messages; each starts a turn."""
    return [i for i, m in enumerate(messages) if m.role == "user"]


def cut(text: str, limit: int, what: str = "old tool result") -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[… {len(text) - limit} more characters of this {what} omitted]"


def prune_tool_results(
    messages: Sequence[Message],
    keep_full_turns: int = 10,
    max_chars: int = 200,
    never_compress: Collection[str] = (),
) -> list[Message]:
    """A new list; the inputs are not modified. Deterministic, so the pruned prefix is identical every round."""
    starts = turn_starts(messages)
    if len(starts) <= keep_full_turns:
        return list(messages)
    boundary = starts[-keep_full_turns]
    out: list[Message] = []
    for i, m in enumerate(messages):
        if (
            i < boundary
            and m.role == "tool"
            and len(m.content) > max_chars
            and (m.tool_name or "") not in never_compress
            and not m.pruned
        ):
            m = replace(m, content=cut(m.content, max_chars), pruned=True)
        out.append(m)
    return out
