"""Edits written as text, for models that follow an edit format better than a tool-calling protocol.

With `agent.edit_format = "files"` the model sees the files it works on in the prompt (as Aider's added files)
and answers with, for each file it changes, either the whole new file or search/replace blocks:

    path/to/file.py
    ```python
    <the whole new content>
    ```

    path/to/file.py
    <<<<<<< SEARCH
    <lines as they are>
    =======
    <lines as they should be>
    >>>>>>> REPLACE

Each block becomes an ordinary `write_file` or `edit_file` call, so it goes through the same policy, approval,
diff, checkpoint and forgiving matching as any tool call. A lone code block with no path is the file when exactly
one editable file was shown (small models often drop the path).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

from ..messages import ToolCall

FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)[ \t]*(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.M | re.S,
)
SEARCH_REPLACE = re.compile(
    r"^<{5,9} ?SEARCH[^\n]*\n(?P<old>.*?)^={5,9}[ \t]*\n(?P<new>.*?)^>{5,9} ?REPLACE[^\n]*$", re.M | re.S
)
# A path on its own line: `a/b.py`, `**a/b.py**`, `### a/b.py`, `File: a/b.py`, `a/b.py:` (Markdown decorations off).
PATH_LINE = re.compile(
    r"^[ \t]*(?:#+[ \t]*|[-*][ \t]+)?(?:(?:file|path|filename)[ \t]*:[ \t]*)?"
    r"[`*_]*(?P<path>[\w./\\-]+\.\w+)[`*_]*:?[ \t]*$",
    re.I | re.M,
)


@dataclass
class Shown:
    """A file shown to the model: its workspace-relative path and whether the model may change it."""

    path: str
    editable: bool = True


def edit_calls(text: str, shown: list[Shown]) -> list[ToolCall]:
    """The write_file / edit_file calls `text` asks for (empty when it asks for none)."""
    known = {s.path for s in shown}
    calls: list[ToolCall] = []
    taken: list[tuple[int, int]] = []
    for match in SEARCH_REPLACE.finditer(text):
        path = _path_before(text, match.start(), known)
        if path is None:
            continue
        old, new = match.group("old"), match.group("new")
        calls.append(_call("edit_file", {"path": path, "old_text": old.rstrip("\n"), "new_text": new.rstrip("\n")}))
        taken.append(match.span())
    for match in FENCE.finditer(text):
        if any(s <= match.start() < e for s, e in taken) or SEARCH_REPLACE.search(match.group("body")):
            continue
        body = match.group("body")
        path = _path_in_info(match.group("info"), known) or _path_before(text, match.start(), known)
        if path is None:
            editable = [s.path for s in shown if s.editable]
            if len(editable) != 1 or not _looks_like_code(body):
                continue
            path = editable[0]
        calls.append(_call("write_file", {"path": path, "content": body}))
    return _last_per_path(calls)


def _call(name: str, arguments: dict[str, str]) -> ToolCall:
    return ToolCall(id=f"edit_{uuid.uuid4().hex[:8]}", name=name, arguments=arguments)


def _path_in_info(info: str, known: set[str]) -> str | None:
    for word in info.replace(":", " ").split():
        path = _normal(word)
        if "." in path.rsplit("/", 1)[-1] and (path in known or "/" in path):
            return path
    return None


def _path_before(text: str, start: int, known: set[str]) -> str | None:
    """The path named on the last non-blank line before a block (a fence opening in between is skipped)."""
    lines = text[:start].rstrip("\n").split("\n")[-3:]
    for line in reversed(lines):
        if not line.strip() or line.lstrip().startswith(("```", "~~~")):
            continue
        match = PATH_LINE.match(line)
        if match:
            path = _normal(match.group("path"))
            return _resolve(path, known)
        return None
    return None


def _resolve(path: str, known: set[str]) -> str:
    """A bare file name that matches exactly one shown file is that file."""
    if path in known:
        return path
    same_name = [k for k in known if k.rsplit("/", 1)[-1] == path]
    return same_name[0] if len(same_name) == 1 else path


def _normal(path: str) -> str:
    path = path.strip().strip("`*_\"'").replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _looks_like_code(body: str) -> bool:
    stripped = body.strip()
    return bool(stripped) and ("\n" in stripped or stripped.startswith(("def ", "class ", "import ", "from ")))


def _last_per_path(calls: list[ToolCall]) -> list[ToolCall]:
    """A model that writes a file twice (a draft, then the fix) means the last one; edits all apply in order."""
    last_write = {c.arguments["path"]: i for i, c in enumerate(calls) if c.name == "write_file"}
    return [c for i, c in enumerate(calls) if c.name != "write_file" or last_write[c.arguments["path"]] == i]
