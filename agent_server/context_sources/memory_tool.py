"""`remember`: the model keeps a short note for later sessions. Offered only when memory is on (memory.enabled).

Writing a memory file is a write outside the files the task is about, and a note reaches every later session's
prompt: the tool asks first by default (policy `ask`; the request's title shows the note) unless the user allowed
`remember`. In a workspace the user has not trusted it writes only the user's file (its `scope` is not offered).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from ..errors import ToolError
from ..tools.base import Tool, ToolContext, ToolResult
from .memory import MAX_NOTE_CHARS, NoteError, Scope, append_note

REMEMBER = "remember"


def _short(text: str, width: int = 70) -> str:
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1] + "…"


def remember_tool(root: Path, workspace_file: bool, user_path: Path | None = None) -> Tool:
    """`workspace_file`: the workspace's memory file may be written (memory on and the workspace trusted)."""
    properties: dict[str, Any] = {
        "note": {
            "type": "string",
            "maxLength": MAX_NOTE_CHARS,
            "description": "One fact or preference worth keeping, in a sentence. Never a secret.",
        }
    }
    if workspace_file:
        properties["scope"] = {
            "type": "string",
            "enum": ["workspace", "user"],
            "description": "workspace (default): this project only; user: every project of the user.",
        }

    async def handler(ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        scope: Scope = "user" if not workspace_file or args.get("scope") == "user" else "workspace"
        try:
            path, note = await asyncio.to_thread(append_note, scope, root, str(args["note"]), user_path)
        except NoteError as exc:
            raise ToolError(f"not remembered: {exc}") from None
        return ToolResult(text=f"Remembered in the {scope} memory ({path.name}): {note}")

    return Tool(
        name=REMEMBER,
        description=(
            "Keep a short note for later sessions (a project fact, a user preference): it is shown at the start "
            "of every session. Only for what stays true; not for this task's progress."
        ),
        parameters={"type": "object", "properties": properties, "required": ["note"], "additionalProperties": False},
        handler=handler,
        kind="other",
        default_policy="ask",
        title=lambda a: f"Remember: {_short(str(a.get('note', '')))}",
    )
