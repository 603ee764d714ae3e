"""A stored transcript -> the `agent/session/update` notifications that show it again (agent/session/load)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .. import acp
from ..messages import Message


def replay_updates(transcript: list[Message], tools: Any) -> Iterator[acp.SessionUpdate]:
    calls: dict[str, str] = {}
    for message in transcript:
        if message.meta.get("summary"):
            continue
        if message.role == "user":
            if message.meta.get("nudge"):
                yield acp.AgentThoughtChunk(content=acp.TextContent(text=f"\n[agent-server: {message.content}]\n"))
            else:
                yield acp.UserMessageChunk(content=acp.TextContent(text=message.content))
        elif message.role == "assistant":
            if message.thinking:
                yield acp.AgentThoughtChunk(content=acp.TextContent(text=message.thinking))
            if message.content and not message.meta.get("recovered_tool_calls"):
                yield acp.AgentMessageChunk(content=acp.TextContent(text=message.content))
            for call in message.tool_calls:
                tool = tools.get(call.name) if tools is not None else None
                calls[call.id] = call.name
                yield acp.ToolCallStart(
                    tool_call_id=call.id,
                    title=tool.describe(call.arguments) if tool else call.name,
                    kind=tool.kind if tool else "other",
                    status="pending",
                    raw_input=call.arguments,
                )
        elif message.role == "tool" and message.tool_call_id:
            failed = message.content.startswith("Error:")
            yield acp.ToolCallProgress(
                tool_call_id=message.tool_call_id,
                status="failed" if failed else "completed",
                content=[acp.Content(content=acp.TextContent(text=message.content))],
            )
