"""The core's session updates as ACP clients draw them best, one session at a time.

- Messages get a `messageId`: chunks of one message share it; a tool call, a plan or a new prompt starts another.
- The agent's own notes to the model (nudges such as "Continue now…", compaction notices) are not the model's
  reasoning: they stay out of `agent_thought_chunk` (the log keeps them).
- `update_plan` is shown once, as the `plan` it sends, not also as a "think" tool call (a replay, which has no
  plan updates, shows the plan each call set).
- Commands (`execute`) carry no location: clients title a card by its location, and a folder is not the command.
- A command that ran in the client's terminal keeps that terminal as its content to the end (the final update
  would otherwise replace the live view with plain text); the text goes to `rawOutput`.
- Every finished tool call carries `rawOutput`: the tool's structured result with its text as `output`.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from typing import Any

from .. import acp

log = logging.getLogger(__name__)
NOTE_HEAD = "\n[agent-server: "  # how the core words its notes in the update stream (agent/loop.py and friends)
_CHUNKS = (acp.AgentMessageChunk, acp.AgentThoughtChunk, acp.UserMessageChunk)


def is_note(update: acp.SessionUpdate) -> bool:
    if not isinstance(update, acp.AgentThoughtChunk) or not isinstance(update.content, acp.TextContent):
        return False
    text = update.content.text
    return text.startswith(NOTE_HEAD) and text.rstrip("\n").endswith("]")


def is_plan_call(update: acp.ToolCallStart) -> bool:
    raw = update.raw_input
    return update.kind == "think" and update.title == "Update plan" and isinstance(raw, dict) and "entries" in raw


@dataclass
class _SessionState:
    message: tuple[str, str] | None = None  # (sessionUpdate kind, messageId) of the message being streamed
    hidden: set[str] = field(default_factory=set)  # tool calls not shown (update_plan)
    commands: set[str] = field(default_factory=set)  # execute calls: no locations
    terminals: dict[str, str] = field(default_factory=dict)  # tool call -> the client terminal it ran in
    replaying: bool = False  # session/load is replaying the stored conversation


class UpdateShaper:
    def __init__(self) -> None:
        self._sessions: dict[str, _SessionState] = {}

    def _state(self, session_id: str) -> _SessionState:
        state = self._sessions.get(session_id)
        if state is None:
            state = self._sessions[session_id] = _SessionState()
        return state

    def new_prompt(self, session_id: str) -> None:
        self._state(session_id).message = None

    def replaying(self, session_id: str, on: bool) -> None:
        self._state(session_id).replaying = on

    def terminal(self, session_id: str, tool_call_id: str, terminal_id: str) -> None:
        self._state(session_id).terminals[tool_call_id] = terminal_id

    def forget(self, session_id: str) -> None:
        self._sessions.pop(session_id, None)

    def params(self, session_id: str, update: acp.SessionUpdate) -> dict[str, Any] | None:
        """The `session/update` params to send for `update`, or None when it is not shown."""
        state = self._state(session_id)
        if isinstance(update, _CHUNKS):
            if is_note(update):
                log.info("agent note (not shown as reasoning): %s", update.content.text.strip())  # type: ignore[union-attr]
                return None
            return _chunk(session_id, update, self._message_id(state, update.session_update))
        state.message = None
        if isinstance(update, acp.ToolCallStart):
            if is_plan_call(update):
                state.hidden.add(update.tool_call_id)
                plan = _plan(update.raw_input) if state.replaying else None
                return acp.notification_params(session_id, plan) if plan is not None else None
            if update.kind == "execute":
                state.commands.add(update.tool_call_id)
                update = update.model_copy(update={"locations": None})
        elif isinstance(update, acp.ToolCallProgress):
            call = update.tool_call_id
            if call in state.hidden:
                if update.status in ("completed", "failed"):
                    state.hidden.discard(call)
                return None
            if call in state.commands:
                update = update.model_copy(update={"locations": None})
            if update.status in ("completed", "failed"):
                update = _finished(update, state.terminals.pop(call, None))
                state.commands.discard(call)
        return acp.notification_params(session_id, update)

    def _message_id(self, state: _SessionState, kind: str) -> str:
        if state.message is None or state.message[0] != kind:
            state.message = (kind, f"msg_{uuid.uuid4().hex[:16]}")
        return state.message[1]


def _plan(raw: Any) -> acp.PlanUpdate | None:
    try:
        return acp.PlanUpdate(entries=[acp.PlanEntry.model_validate(e) for e in raw["entries"]])
    except (ValueError, TypeError, KeyError):  # a call the model got wrong: it set no plan
        return None


def _chunk(session_id: str, update: Any, message_id: str) -> dict[str, Any]:
    block = update.content
    if type(block) is acp.TextContent and block.meta is None and update.meta is None:
        body = {"sessionUpdate": update.session_update, "content": {"type": "text", "text": block.text}}
        body["messageId"] = message_id
        return {"sessionId": session_id, "update": body}
    shaped = update.model_copy(update={"message_id": message_id})
    return acp.SessionNotification(session_id=session_id, update=shaped).dump()


def _finished(update: acp.ToolCallProgress, terminal_id: str | None) -> acp.ToolCallProgress:
    content = list(update.content or [])
    text = "\n".join(
        c.content.text for c in content if isinstance(c, acp.Content) and isinstance(c.content, acp.TextContent)
    )
    raw = update.raw_output
    if raw is None:
        raw = {"output": text}
    elif isinstance(raw, dict) and "output" not in raw:
        raw = {**raw, "output": text}
    changes: dict[str, Any] = {"raw_output": raw}
    if terminal_id is not None:
        # The live terminal stays the card's content; its final text is in rawOutput (and went to the model).
        kept = [c for c in content if not isinstance(c, acp.Content)]
        changes["content"] = [acp.TerminalContent(terminal_id=terminal_id), *kept]
    return update.model_copy(update=changes)
