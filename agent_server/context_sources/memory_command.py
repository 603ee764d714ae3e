"""`/remember TEXT`: the user keeps a note for later sessions. The user's own act: no question, and no model turn
(the server writes the note and says where). Works the same in every face, since they all send prompts through
`AgentService.prompt`.

`/remember` alone lists the notes; `--user` writes the user's file (every workspace), `--workspace` this
workspace's, which is the default where it may be used (memory on and the workspace trusted), else the user's.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from .. import acp
from ..config import Settings
from .commands import CustomCommand, split_invocation
from .memory import NoteError, Scope, append_note
from .memory_prompt import files_named, read_all
from .session_rules import workspace_trusted

NAME = "remember"
COMMAND = CustomCommand(
    name=NAME,
    description="Keep a note for later sessions (memory); alone: list the notes",
    hint="[--user] <note>",
    body="",
    source="agent-server",
)
OFF = (
    "Memory is off, so nothing was saved. Turn it on with `[memory] enabled = true` in your config.toml "
    "(every workspace) or in this workspace's .agent-server.toml (once you trust it). See docs/memory-and-skills.md."
)
LISTED = 30  # notes shown by `/remember` alone; `agent-server memory list` shows them all


def _arguments(blocks: list[acp.ContentBlock]) -> str | None:
    first = next((b for b in blocks if isinstance(b, acp.TextContent)), None)
    parsed = split_invocation(first.text) if first is not None else None
    if parsed is None or parsed[0] != NAME:
        return None
    return parsed[1]


def _scope(arguments: str, trusted: bool) -> tuple[Scope | None, str]:
    words = arguments.split(maxsplit=1)
    flag = words[0] if words else ""
    if flag in ("--user", "--workspace"):
        arguments = words[1] if len(words) > 1 else ""
    if flag == "--user" or (flag != "--workspace" and not trusted):
        return "user", arguments
    return ("workspace" if trusted else None), arguments


def _listing(root: Path, trusted: bool) -> str:
    notes = read_all(root, trusted)
    if not notes:
        return f"No notes yet ({files_named(trusted)}). Add one with /remember TEXT."
    lines = [f"- {n.ref} ({n.scope}) {n.text}" for n in notes[-LISTED:]]
    more = f"\n({len(notes) - LISTED} older notes: agent-server memory list)" if len(notes) > LISTED else ""
    return f"Notes ({files_named(trusted)}):\n" + "\n".join(lines) + more


async def remember_command(blocks: list[acp.ContentBlock], root: Path, settings: Settings, db_path: Path) -> str | None:
    """The answer to a `/remember` prompt, once the note is saved; None for any other prompt."""
    arguments = _arguments(blocks)
    if arguments is None:
        return None
    if not settings.memory.enabled:
        return OFF
    trusted = await asyncio.to_thread(workspace_trusted, db_path, root)
    scope, text = _scope(arguments, trusted)
    if not text.strip():
        return await asyncio.to_thread(_listing, root, trusted)
    if scope is None:
        return (
            "This workspace is not trusted, so its memory file is off and nothing was saved. Trust the workspace "
            "(its .agent-server.toml), or keep the note in your own memory: /remember --user TEXT"
        )
    try:
        path, note = await asyncio.to_thread(append_note, scope, root, text)
    except NoteError as exc:
        return f"Not remembered: {exc}."
    return f"Remembered in the {scope} memory ({path}): {note}"
