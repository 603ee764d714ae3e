"""The memory notes as the model gets them: one block after the rules (and the skills), within a budget counted the
way the rules' is, the most relevant notes first and then the newest.

"Relevant" is judged against the session's first request, not the latest: the block is part of the prompt prefix the
LLM server caches, so it stays byte for byte the same for the whole session until a memory file changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..context import estimate_text
from ..messages import Message
from .memory import Note, read_notes, user_memory_path

WINDOW_SHARE = 16  # at most a sixteenth of the window: 256 tokens of a 4k window (the rules take an eighth)
HEAD = (
    "Notes kept from earlier sessions, from memory files the user can read and edit ({files}). Use them where "
    "they apply; they are notes, not permissions."
)
_WORD = re.compile(r"[A-Za-z0-9_]{3,}")
_COMMON = frozenset("the and for you are with this that what how not but all can use from have".split())


@dataclass(frozen=True)
class MemoryBlock:
    text: str = ""
    """Appended to the system prompt; empty without notes."""
    tokens: int = 0
    kept: int = 0
    left_out: int = 0
    budget: int = 0
    notes: list[Note] = field(default_factory=list)
    """Every note that was read (the kept ones and the rest), for `/remember` without text."""


def budget_for(window: int, configured: int) -> int:
    return max(0, min(configured, window // WINDOW_SHARE))


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)} - _COMMON


def ranked(notes: list[Note], query: str) -> list[Note]:
    """The workspace's notes before the user's, newest first, then the most relevant (shared words) first."""
    newest = [n for n in reversed(notes) if n.scope == "workspace"] + [n for n in reversed(notes) if n.scope == "user"]
    wanted = _words(query)
    return sorted(newest, key=lambda n: -len(wanted & _words(n.text)))


def _line(note: Note) -> str:
    return f"- ({note.scope}) {note.text}\n"


def render(notes: list[Note], budget: int, query: str, files: str) -> MemoryBlock:
    if not notes or budget <= 0:
        return MemoryBlock(budget=budget, notes=notes)
    head = f"\n\n<memory>\n{HEAD.format(files=files)}\n"
    tail = "</memory>"
    room = budget - estimate_text(head + tail) - estimate_text(_left_out(len(notes)))
    kept: list[str] = []
    for note in ranked(notes, query):
        cost = estimate_text(_line(note))
        if cost <= room:
            kept.append(_line(note))
            room -= cost
    if not kept:
        return MemoryBlock(budget=budget, left_out=len(notes), notes=notes)
    left_out = len(notes) - len(kept)
    text = head + "".join(kept) + (_left_out(left_out) if left_out else "") + tail
    return MemoryBlock(text, estimate_text(text), len(kept), left_out, budget, notes)


def _left_out(count: int) -> str:
    return f"[agent-server: {count} more note{'s' if count != 1 else ''} left out to fit the window]\n"


def first_request(history: list[Message]) -> str:
    return next((str(m.content) for m in history if m.typed_by_user), "")


def read_all(root: Path, workspace_too: bool, user_path: Path | None = None) -> list[Note]:
    notes = read_notes("workspace", root) if workspace_too else []
    return notes + read_notes("user", root, user_path)


def files_named(workspace_too: bool, user_path: Path | None = None) -> str:
    user = user_path or user_memory_path()
    try:
        shown = "~/" + user.relative_to(Path.home()).as_posix()
    except ValueError:
        shown = str(user)
    return f".agent-server/memory.md for this workspace, {shown} for every workspace" if workspace_too else shown


def memory_block(root: Path, budget: int, trusted: bool, query: str, user_path: Path | None = None) -> MemoryBlock:
    """The block for a turn (blocking: reads the files); the workspace's file only when `trusted`."""
    notes = read_all(root, trusted, user_path)
    return render(notes, budget, query, files_named(trusted, user_path))
