"""A request that names a workspace file, answered without ever looking at it: a deflection.

Small models answer "Read calc.py and tell me…" with generic instructions ("open the file in a text editor") or an
invented path. When the user's message names a file that exists in the workspace and no tool ran since, the answer
is not accepted: the model is told to read the file first (capped like the other deflection nudges).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import SandboxError
from ...messages import Message
from ...tools.reading import ReadFile
from ...tools.sandbox import read_regular
from .guard import Answer, Guard, Verdict

if TYPE_CHECKING:
    from ..turn import Turn

# `calc.py`, `src/app.ts`, `scripts/quickstart.sh`, `docs/`, `Makefile`-less names are not guessed.
_PATHISH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z0-9]{1,10}|(?:[\w.-]+/)+[\w.-]+)(?![\w/-])")
MAX_NAMES = 3
# Pictures: read_file cannot show one, and one named in a request was usually attached (`#image shot.png`).
PICTURE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".svg", ".ico"})


def named_files(text: str, roots: list[Path]) -> list[str]:
    """Workspace files the text names (as written), existing ones only, inside a root."""
    found: list[str] = []
    for match in _PATHISH.finditer(text):
        name = match.group(1).rstrip(".")
        if Path(name).suffix.lower() in PICTURE_SUFFIXES:
            continue
        for root in roots:
            try:
                path = (root / name).resolve()
            except (OSError, ValueError):
                continue
            if path.is_file() and path.is_relative_to(root.resolve()):
                if name not in found and not _shown(text, path):
                    found.append(name)
                break
        if len(found) >= MAX_NAMES:
            break
    return found


def request_and_tools(history: list[Message]) -> tuple[str, bool]:
    """The user's request of this turn (nudges skipped) and whether any tool ran since."""
    looked = False
    for message in reversed(history):
        if message.role == "tool":
            looked = True
        elif message.typed_by_user:
            return message.content if isinstance(message.content, str) else "", looked
    return "", looked


def unread_nudge(files: list[str]) -> str:
    names = ", ".join(f"`{f}`" for f in files)
    return (
        f"The request names {names}, but you answered without reading it. Call {ReadFile.name} with "
        f'{{"path": "{files[0]}"}} now, then answer from what the file really says.'
    )


SHOWN_LINE = 12  # a line this long found in the request means the file (or a selection of it) was attached
SHOWN_BYTES = 200_000


def _shown(text: str, path: Path) -> bool:
    """The request already holds (part of) the file: an @-mention, a selection, the files edit format."""
    try:
        head = read_regular(path, SHOWN_BYTES, truncate=True).decode("utf-8", errors="replace")
    except (OSError, SandboxError):
        return False
    return any(len(line) >= SHOWN_LINE and line in text for line in (raw.strip() for raw in head.splitlines()))


class UnlookedFiles(Guard):
    """A finished-looking answer to a request that names workspace files no tool looked at: read them first (capped
    with the deflection nudges). An edit format that shows the request's files in the prompt has looked at them."""

    async def tool_free_answer(self, turn: Turn, answer: Answer) -> Verdict | None:
        if answer.analysis.verdict != "ok" or ReadFile.name not in turn.tools.names() or answer.format.shows_files:
            return None
        request, looked = request_and_tools(turn.session.history)
        files = [] if looked else named_files(request, turn.session.roots)
        if files and turn.take("deflection", turn.settings.agent.deflection_retries):
            return Verdict(nudge=unread_nudge(files), require_tool=True)
        return None
