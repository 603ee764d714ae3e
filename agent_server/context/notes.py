"""The session summary that replaces evicted turns, extracted deterministically from tool calls and messages."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from ..messages import Message
from .call_roles import CallRoles

_EXIT = re.compile(r"exit(?:ed with)?(?: code|_code| status)?[:= ]+(-?\d+)", re.IGNORECASE)
_LIMITS = {"requests": 8, "files_read": 30, "files_modified": 30, "commands": 10, "decisions": 8, "todos": 15}
# A tool the roles do not say changes files (an MCP server's) is taken to, when its name says so.
_EDIT_WORDS = ("write", "edit", "create", "delete", "move", "rename", "patch")


def _first_sentence(text: str, limit: int) -> str:
    text = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    text = m.group(1) if m else text
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _add(items: list[str], value: str) -> None:
    if value in items:
        items.remove(value)
    items.append(value)


@dataclass
class SessionNotes:
    """What a reader of the evicted turns would want to remember."""

    requests: list[str] = field(default_factory=list)
    files_read: list[str] = field(default_factory=list)
    files_modified: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)
    todos: list[str] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: Any) -> SessionNotes:
        if not isinstance(data, dict):
            return cls()
        return cls(**{k: [str(v) for v in data.get(k, []) if v] for k in _LIMITS})

    def to_dict(self) -> dict[str, list[str]]:
        return asdict(self)

    def add(self, messages: Iterable[Message], roles: CallRoles = CallRoles()) -> None:
        results: dict[str, str] = {}
        msgs = list(messages)
        for m in msgs:
            if m.role == "tool" and m.tool_call_id:
                results[m.tool_call_id] = m.content
        for m in msgs:
            if m.typed_by_user and m.content.strip():
                _add(self.requests, _first_sentence(m.content, 160))
            elif m.role == "assistant":
                if m.content.strip() and not m.tool_calls:
                    _add(self.decisions, _first_sentence(m.content, 200))
                for call in m.tool_calls:
                    self._add_call(call.name, call.arguments, results.get(call.id, ""), roles)
        for name, limit in _LIMITS.items():
            items: list[str] = getattr(self, name)
            del items[: max(0, len(items) - limit)]

    def _add_call(self, name: str, args: dict[str, Any], result: str, roles: CallRoles) -> None:
        path = args.get("path") or args.get("file") or args.get("file_path")
        if name in roles.plans and isinstance(args.get("entries"), list):
            self.todos = [
                str(e.get("content", ""))
                for e in args["entries"]
                if isinstance(e, dict) and e.get("status") != "completed" and e.get("content")
            ]
        elif name in roles.runs_commands and isinstance(args.get("command"), str):
            m = _EXIT.search(result)
            _add(self.commands, f"{args['command'][:120]}" + (f" (exit {m.group(1)})" if m else ""))
        elif isinstance(path, str):
            modified = name in roles.changes_files or any(word in name.lower() for word in _EDIT_WORDS)
            _add(self.files_modified if modified else self.files_read, path)

    def render(self) -> str:
        if not any(getattr(self, k) for k in _LIMITS):
            return ""
        parts = ["Summary of the earlier part of this session (older messages were removed to fit the context):"]
        for key, label in (
            ("requests", "The user asked"),
            ("decisions", "Findings and decisions"),
            ("files_read", "Files read"),
            ("files_modified", "Files modified"),
            ("commands", "Commands run"),
            ("todos", "Open todos"),
        ):
            items: list[str] = getattr(self, key)
            if items:
                sep = ", " if key.startswith("files") else "\n- "
                lead = " " if key.startswith("files") else "\n- "
                parts.append(f"{label}:{lead}{sep.join(items)}")
        return "\n".join(parts)


def summary_message(notes: SessionNotes) -> Message:
    """A system message carrying the rendered notes (and the notes themselves, for the next merge)."""
    return Message("system", notes.render(), summary=True, notes=notes.to_dict())


def with_summary(messages: list[Message], text: str) -> list[Message]:
    """Place `text` as the summary message right after the leading (fixed) system messages, replacing any old one.

    The fixed system prompt stays byte-identical, so a server's KV cache of it survives.
    """
    rest = [m for m in messages if not m.summary]
    head = 0
    while head < len(rest) and rest[head].role == "system":
        head += 1
    summary = Message("system", text, summary=True)
    return [*rest[:head], summary, *rest[head:]]
