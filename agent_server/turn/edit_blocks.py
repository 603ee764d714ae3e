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
diff, checkpoint and forgiving matching as any tool call. Small models drop the path, put it inside the block, or
send one function for the whole file, so, knowing the shown files' text:
- a path on the block's first line (`app/x.py`, `# app/x.py`, `// app/x.js`) names the block's file, and more such
  lines inside one block start the next file;
- a block with no path is the file when exactly one editable file was shown, else the shown file that defines the
  most of the names the block defines (none, or a tie, or a read-only file: nothing is written);
- a Python block that is part of its file is merged into it (`excerpt_merge`);
- a block that repeats a file unchanged is dropped when the answer changes something else (an echo of what it was
  shown); alone, it goes through, and write_file says nothing changed.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass

from ..messages import ToolCall
from ..tools.editing import EditFile, WriteFile
from .block_scan import BlockScan
from .code_names import best_match, defined_names
from .excerpt_merge import merged

# A path on its own line: `a/b.py`, `**a/b.py**`, `### a/b.py`, `File: a/b.py`, `a/b.py:` (Markdown decorations off).
PATH_LINE = re.compile(
    r"^[ \t]*(?:#+[ \t]*|[-*][ \t]+)?(?:(?:file|path|filename)[ \t]*:[ \t]*)?"
    r"[`*_]*(?P<path>[\w./\\-]+\.\w+)[`*_]*:?[ \t]*$",
    re.I | re.M,
)
# A path inside the block, as a comment of its own: `# a/b.py`, `// a/b.js`, `-- a/b.lua`, `/* a/b.c */`.
PATH_COMMENT = re.compile(
    r"^[ \t]*(?:#+|//|--|/\*)[ \t]*(?:file(?:name)?[ \t]*:[ \t]*)?"
    r"(?P<path>[\w./\\-]+\.\w+)[ \t]*(?:\*/)?[ \t]*$"
)


@dataclass
class Shown:
    """A file shown to the model: its workspace-relative path and whether the model may change it."""

    path: str
    editable: bool = True


def edit_calls(
    text: str, shown: list[Shown], current: Mapping[str, str] | None = None, may_remove: bool = True
) -> list[ToolCall]:
    """The write_file / edit_file calls `text` asks for (empty when it asks for none). `current` is the shown files'
    text now (it places blocks without a path and merges excerpts); `may_remove` is False when the request asks for
    no removal, so a block that only drops definitions is taken for an excerpt. Time linear in the text and the
    shown files: each block is read once, each shown file's names read once (`_Shown`), each file merged once."""
    files = _Shown(shown, current or {})
    known = {s.path for s in shown}
    scan = BlockScan(text)
    calls: list[ToolCall] = []
    taken = bytearray(len(scan.lines))  # the lines of search/replace blocks: a fence starting there is not a block
    for block in scan.search_replace():
        path = _path_before(scan, block.line, known)
        if path is None:
            continue
        old, new = block.old.rstrip("\n"), block.new.rstrip("\n")
        calls.append(_call(EditFile.name, {"path": path, "old_text": old, "new_text": new}))
        taken[block.line : block.last + 1] = b"\x01" * (block.last + 1 - block.line)
    for fence in scan.fences():
        if taken[fence.line] or scan.holds_search_replace(fence):
            continue
        path = _path_in_info(fence.info, known) or _path_before(scan, fence.line, known)
        for named, body in _split_on_paths(fence.body, path, known):
            target = named or _place(body, files)
            if target is not None:
                calls.append(_call(WriteFile.name, {"path": target, "content": body}))
    kept = _last_per_path(calls)
    for call in kept:  # merged after the drafts are gone: one merge per file, whatever the answer repeats
        target = call.arguments["path"]
        content = files.current.get(target)
        if call.name == WriteFile.name and content and target.endswith(".py"):
            body = call.arguments["content"]
            call.arguments["content"] = merged(content, body, may_remove) or body
    return _without_echoes(kept, files.current)


@dataclass
class _Shown:
    """The shown files of one answer, their names read at most once however many blocks the answer has."""

    shown: list[Shown]
    current: Mapping[str, str]
    _names: dict[str, set[str]] | None = None

    def names(self) -> dict[str, set[str]]:
        """The names each shown file (that exists) defines at its top level."""
        if self._names is None:
            self._names = {
                s.path: defined_names(self.current[s.path], s.path.endswith(".py"))
                for s in self.shown
                if s.path in self.current
            }
        return self._names


def _split_on_paths(body: str, path: str | None, known: set[str]) -> list[tuple[str | None, str]]:
    """A block's parts, each with the path it names: a path on the block's first line (a bare path line or a
    comment) names the block's file; further path comments naming a shown file start the next file."""
    parts: list[tuple[str | None, list[str]]] = [(path, [])]
    for number, line in enumerate(body.splitlines(keepends=True)):
        found = _path_comment(line, known)
        if found is None and number == 0 and path is None:
            found = _path_line(line, known)
        if found is not None and (number == 0 or found in known):
            parts.append((found, []))
            continue
        parts[-1][1].append(line)
    return [(named, "".join(lines)) for named, lines in parts if "".join(lines).strip()]


def _path_comment(line: str, known: set[str]) -> str | None:
    match = PATH_COMMENT.match(line)
    if not match:
        return None
    path = _resolve(_normal(match.group("path")), known)
    # `# notes.txt` alone is a comment; a path with a folder, or a shown file's name, is a path
    return path if "/" in path or path in known else None


def _path_line(line: str, known: set[str]) -> str | None:
    match = PATH_LINE.match(line)
    if not match:
        return None
    path = _resolve(_normal(match.group("path")), known)
    return path if path in known or "/" in path else None  # a bare `x.py` could be code; `a/x.py` cannot


def _place(body: str, files: _Shown) -> str | None:
    """The file a block without a path is: the editable file defining the most of the block's names, else the only
    editable file shown, unless the block defines only a read-only file's names (an echoed test goes nowhere)."""
    if not _looks_like_code(body):
        return None
    editable = {s.path for s in files.shown if s.editable}
    python = all(s.path.endswith(".py") for s in files.shown)
    names = files.names()
    block = defined_names(body, python)
    best = best_match(block, {path: found for path, found in names.items() if path in editable})
    if best is not None:
        return best
    if any(block & found for path, found in names.items() if path not in editable):
        return None
    return next(iter(editable)) if len(editable) == 1 else None


def _without_echoes(calls: list[ToolCall], current: Mapping[str, str]) -> list[ToolCall]:
    """Whole files sent back unchanged (blank lines and trailing spaces aside) are dropped when something else in
    the answer is a change; alone, they go through as the file's exact text, which write_file refuses as no change
    (a copy that only lost a blank line must not be reported as a fix)."""

    def echo(call: ToolCall) -> bool:
        now = current.get(call.arguments["path"])
        return call.name == WriteFile.name and now is not None and _same(now, call.arguments["content"])

    changes = [c for c in calls if not echo(c)]
    if changes:
        return changes
    for call in calls:
        call.arguments["content"] = current[call.arguments["path"]]
    return calls


def _same(a: str, b: str) -> bool:
    def lines(text: str) -> list[str]:
        return [line.rstrip() for line in text.replace("\r\n", "\n").split("\n") if line.strip()]

    return lines(a) == lines(b)


def _call(name: str, arguments: dict[str, str]) -> ToolCall:
    return ToolCall(id=f"edit_{uuid.uuid4().hex[:8]}", name=name, arguments=arguments)


def _path_in_info(info: str, known: set[str]) -> str | None:
    for word in info.replace(":", " ").split():
        path = _normal(word)
        if "." in path.rsplit("/", 1)[-1] and (path in known or "/" in path):
            return path
    return None


def _path_before(scan: BlockScan, line: int, known: set[str]) -> str | None:
    """The path named on the last non-blank line before a block (a fence opening in between is skipped)."""
    for text in reversed(scan.before(line)):
        if not text.strip() or text.lstrip().startswith(("```", "~~~")):
            continue
        match = PATH_LINE.match(text)
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
    last_write = {c.arguments["path"]: i for i, c in enumerate(calls) if c.name == WriteFile.name}
    return [c for i, c in enumerate(calls) if c.name != WriteFile.name or last_write[c.arguments["path"]] == i]
