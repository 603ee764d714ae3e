"""The workspace files a request's pasted failure points at: traceback frames and pytest node ids.

A bug report for a library names the failing test and shows its output, never the file to fix; the frames do:
`File "src/pkg/mod.py", line 12, in f` (Python), `src/pkg/mod.py:12: in f` (pytest), `tests/test_x.py::test_y`
(a node id). Their paths are resolved inside the workspace only: relative, absolute inside it, or a path of another
machine or of an installed copy (`.../site-packages/pkg/mod.py`) whose tail is a file of the workspace, also under
`src/` (the src layout). The text is untrusted (command output pasted by the user): a path is only ever a lookup
inside the workspace, never outside it, and never a link.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

PY_FRAME = re.compile(r'File "(?P<path>[^"\n]{1,500})", line (?P<line>\d{1,7})(?:, in (?P<func><?[\w.]{1,200}>?))?')
# pytest: `src/pkg/mod.py:12: in f`, and the last frame `src/pkg/mod.py:12: ValueError` (the line that raised)
PYTEST_FRAME = re.compile(
    r"^[ \t]*(?P<path>(?:[A-Za-z]:)?[^\s:\"'()]{1,500}\.\w{1,6}):(?P<line>\d{1,7}):(?:\d+:)?"
    r"[ \t]*(?:in (?P<func>[\w<>.]{1,200}))?",
    re.M,
)
# Anchored at the start of a word: never tried again at each character of a long run (no quadratic scan).
NODE_ID = re.compile(r"(?<![\w./\\-])(?P<path>[\w./\\-]{1,500}\.py)::(?P<names>[\w\[\]:.-]{1,300})")
INSTALLED = re.compile(r".*/(?:site|dist)-packages/")
TAIL_PARTS = 8
MAX_FRAMES = 200  # a pasted log with more frames than this is read for its first ones only


@dataclass
class Frame:
    """A workspace file a failure names, with the lines and functions of it that the failure went through."""

    path: str
    lines: list[int] = field(default_factory=list)
    names: set[str] = field(default_factory=set)


def frames(text: str, root: Path) -> list[Frame]:
    """The workspace files the request's failure output names, deepest frame first (the traceback's order reversed:
    the innermost call is where the bug shows), one entry per file with all its lines and names."""
    found: list[tuple[int, str, int | None, str | None]] = []
    for match in PY_FRAME.finditer(text):
        found.append((match.start(), match.group("path"), int(match.group("line")), match.group("func")))
    for match in PYTEST_FRAME.finditer(text):
        found.append((match.start(), match.group("path"), int(match.group("line")), match.group("func")))
    for match in NODE_ID.finditer(text):
        names = [n.split("[", 1)[0] for n in match.group("names").split("::")]
        found.append((match.start(), match.group("path"), None, names[-1] if names else None))
    found.sort(key=lambda f: f[0])
    by_path: dict[str, Frame] = {}
    cache: dict[str, str | None] = {}
    for _start, raw, line, func in reversed(found[:MAX_FRAMES]):
        if raw not in cache:
            cache[raw] = resolve(raw, root)
        path = cache[raw]
        if path is None:
            continue
        frame = by_path.setdefault(path, Frame(path))
        if line is not None:
            frame.lines.append(line)
        if func and not func.startswith("<"):
            frame.names.add(func.rsplit(".", 1)[-1])
    return list(by_path.values())


def resolve(raw: str, root: Path) -> str | None:
    """`raw` (a path as a traceback spells it) as a workspace-relative path of a regular file, or None."""
    text = raw.strip().replace("\\", "/")
    if not text or "\0" in text:
        return None
    candidates: list[str] = []
    absolute = text.startswith("/") or re.match(r"^[A-Za-z]:/", text) is not None
    if absolute:
        inside = _relative_to_root(text, root) if text.startswith("/") else None
        if inside is not None:
            candidates.append(inside)
        installed = INSTALLED.sub("", text) if INSTALLED.match(text) else None
        if installed:
            candidates += [installed, f"src/{installed}"]
        parts = PurePosixPath(text).parts
        # Another machine's checkout (CI, a colleague): its tail, two parts at least (`pkg/mod.py`, not `mod.py`),
        # at most TAIL_PARTS (a bounded number of lookups per frame).
        for start in range(max(1, len(parts) - TAIL_PARTS), max(1, len(parts) - 1)):
            tail = "/".join(parts[start:])
            candidates += [tail, f"src/{tail}"]
    else:
        while text.startswith("./"):
            text = text[2:]
        candidates += [text, f"src/{text}"]
    for candidate in candidates:
        if is_workspace_file(root, candidate):
            return candidate
    return None


def _relative_to_root(text: str, root: Path) -> str | None:
    try:
        return Path(text).resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return None


def is_workspace_file(root: Path, relative: str) -> bool:
    """A regular file inside the workspace (not a link, not outside it however the path is spelled)."""
    if not relative or relative.startswith("/") or "\0" in relative:
        return False
    full = root / relative
    try:
        # No link anywhere on the way (`cfg/.env` with `cfg -> .` is `.env`): the real path is the path as written.
        real = root.resolve() / os.path.normpath(relative)
        return full.is_file() and not full.is_symlink() and full.resolve() == real
    except (OSError, ValueError):
        return False
