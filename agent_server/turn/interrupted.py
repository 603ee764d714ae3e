"""Tool calls a dead process never answered: a crash or kill mid-call leaves a call without its result, which no
server accepts as history. The turn answers them before its first round; a replay shows them as failed."""

from __future__ import annotations

from ..messages import Message

INTERRUPTED = "Error: interrupted; the agent stopped before this call finished."


def unanswered_calls(history: list[Message]) -> list[Message]:
    """Tool results for calls that never got one (the process died mid-call), placed right after their call's
    results, so the history is valid for the model again. Returns the inserted messages; `history` is edited."""
    inserted: list[Message] = []
    i = 0
    while i < len(history):
        message = history[i]
        i += 1
        if message.role != "assistant" or not message.tool_calls:
            continue
        answered: set[str] = set()
        while i < len(history) and history[i].role == "tool":
            answered.add(history[i].tool_call_id or "")
            i += 1
        for call in message.tool_calls:
            if call.id not in answered:
                result = Message(
                    role="tool", content=INTERRUPTED, tool_call_id=call.id, tool_name=call.name, is_error=True
                )
                history.insert(i, result)
                inserted.append(result)
                i += 1
    return inserted
