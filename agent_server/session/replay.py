"""A stored transcript -> the `agent/session/update` notifications that show it again (agent/session/load)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .. import acp
from ..messages import Message
from ..turn.interrupted import INTERRUPTED


def replay_updates(transcript: list[Message], tools: Any) -> Iterator[acp.SessionUpdate]:
    open_calls: list[str] = []  # shown but not answered yet: a crash mid-call leaves them open for good
    for index, message in enumerate(transcript):
        if message.summary:
            continue
        if message.role != "tool":
            yield from _close(open_calls)
        if message.role == "user":
            if not message.typed_by_user:
                yield acp.AgentThoughtChunk(content=acp.TextContent(text=f"\n[agent-server: {message.content}]\n"))
            else:
                text = message.as_typed
                # Its own id: two prompts in a row (the first turn failed) stay two messages in the editor.
                yield acp.UserMessageChunk(content=acp.TextContent(text=text), message_id=f"user-{index}")
                for image in message.images:  # the pictures as the user sent them, whether the model saw them or not
                    picture = acp.ImageContent(data=image.data, mime_type=image.mime_type)
                    yield acp.UserMessageChunk(content=picture, message_id=f"user-{index}")
        elif message.role == "assistant":
            if message.thinking:
                yield acp.AgentThoughtChunk(content=acp.TextContent(text=message.thinking))
            if message.content and not message.recovered_tool_calls:
                yield acp.AgentMessageChunk(content=acp.TextContent(text=message.content))
            for call in message.tool_calls:
                tool = tools.get(call.name) if tools is not None else None
                open_calls.append(call.id)
                yield acp.ToolCallStart(
                    tool_call_id=call.id,
                    title=tool.describe(call.arguments) if tool else call.name,
                    kind=tool.kind if tool else "other",
                    status="pending",
                    raw_input=call.arguments,
                )
        elif message.role == "tool" and message.tool_call_id:
            if message.tool_call_id in open_calls:
                open_calls.remove(message.tool_call_id)
            content: list[acp.Content | acp.Diff] = [acp.Content(content=acp.TextContent(text=message.content))]
            content += [acp.Diff(path=d.path, old_text=d.old_text, new_text=d.new_text) for d in message.diffs]
            done = acp.ToolCallProgress(
                tool_call_id=message.tool_call_id,
                status="failed" if message.is_error else "completed",
                content=content,  # type: ignore[arg-type]
            )
            if message.rejected is not None:
                done.meta = message.rejected.meta()
            yield done
    yield from _close(open_calls)


def _close(open_calls: list[str]) -> Iterator[acp.SessionUpdate]:
    for call_id in open_calls:
        yield acp.ToolCallProgress(
            tool_call_id=call_id, status="failed", content=[acp.Content(content=acp.TextContent(text=INTERRUPTED))]
        )
    open_calls.clear()
