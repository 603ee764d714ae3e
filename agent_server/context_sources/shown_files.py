"""The files a request works on, shown to the model in the prompt (for `agent.edit_format = "files"`).

A model that edits by answering with files must see them first, as Aider's added files. Which ones, best first:
1. the workspace code a pasted failure goes through (traceback frames, deepest first: `traceback_files.py`);
2. the files the request names (a path, a file name unique in the workspace);
3. the modules the named or failing test files import (`imported_modules.py`, flat and `src/` layouts);
4. those test files, read-only unless the request asks for tests (`request_kind.wants_tests`);
and only when none of that names any code: the files shown before in the session (a follow-up), else a small
workspace's source files, code first, documentation and configuration only in a workspace without code. Nothing is
ever substituted for code that was identified: a README is no stand-in for the module a traceback named.
A request that is only chat ("Say hello") is shown nothing; `files_prompt.py` renders what is picked.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..context import request_kind
from ..errors import SandboxError
from ..tools.sandbox import read_regular
from ..turn.edit_blocks import Shown
from .imported_modules import imported_modules
from .traceback_files import Frame, frames, is_workspace_file, resolve

# A path or file name in the request; anchored at the start of a word and bounded, so a long run of characters is
# never scanned again from each of its positions.
MENTION = re.compile(r"(?<![\w./\\-])[\w./\\-]{1,400}\.[A-Za-z0-9]{1,6}\b")
# A name written as code: `snake_case`, `camelCase`, `call(`, or in backticks. Plain words are no definitions to find.
CODE_NAME = re.compile(
    r"`(?P<tick>[A-Za-z_]\w*)[`(]|\b(?P<call>[A-Za-z_]\w*)\(|\b(?P<name>[a-z]\w*_\w+|[a-z]+[A-Z]\w*)\b"
)
CODE_SUFFIXES = {".py", ".js", ".ts", ".tsx", ".jsx", ".go", ".rs", ".java", ".rb", ".c", ".h", ".cpp", ".lua"}
OTHER_SUFFIXES = {".md", ".toml", ".json"}  # shown only in a workspace without code
SOURCE_SUFFIXES = CODE_SUFFIXES | OTHER_SUFFIXES
SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", ".agent-server", "build", "dist", ".mypy_cache"}
MAX_SCAN = 400  # a workspace with more files than this is not "small": only named files are shown
MAX_REQUEST = 200_000  # characters of a request read for paths and frames (a pasted log's start)
MAX_NAMES = 200


@dataclass
class Choice:
    """The files to show, best first, and what is known about where to look in each."""

    shown: list[Shown] = field(default_factory=list)
    focus: dict[str, Frame] = field(default_factory=dict)  # per path: lines and names a failure or request names
    listed: set[str] = field(default_factory=set)  # shown only as a small workspace's sources: none was identified
    new: list[str] = field(default_factory=list)  # files the request asks to create (not there yet)


def is_test(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return (
        name.startswith("test_")
        or name == "conftest.py"
        or name.endswith(("_test.py", ".test.ts", ".test.js", ".spec.ts", ".spec.js", "_test.go"))
        or "/tests/" in f"/{path}"
    )


def workspace_files(root: Path) -> list[str] | None:
    """The source files of a small workspace, sorted; None past MAX_SCAN of them (not small: only named files are
    shown). Walked with pruning and stopped early, never the whole tree."""
    out: list[str] = []
    for folder, dirs, files in os.walk(root):  # links to folders are not followed
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
        base = Path(folder)
        for name in sorted(files):
            path = base / name
            if name.startswith(".") or path.suffix not in SOURCE_SUFFIXES or path.is_symlink():
                continue
            out.append(path.relative_to(root).as_posix())
            if len(out) > MAX_SCAN:
                return None
    return sorted(out)


def choose(
    text: str, root: Path, previous: list[Shown] | None = None, refuse: Callable[[str], str | None] | None = None
) -> Choice:
    """The files to show for a request (see the module's docstring), with where to look in each; never a file
    `refuse` names a reason for (read_file's deny rules: a request naming `.env` does not paste it)."""
    text = text[:MAX_REQUEST]
    edit, tests_editable = (
        request_kind.wants_edit(text),
        request_kind.wants_edit(text) and request_kind.wants_tests(text),
    )
    files = workspace_files(root)
    failed = frames(text, root)
    named, new = _mentions(text, root, files, edit)
    focus = {f.path: f for f in failed}
    tests = [f.path for f in failed if is_test(f.path)] + [n for n in named if is_test(n)]
    failing = {f.path: f.names for f in failed if is_test(f.path)}
    code = [f.path for f in failed if not is_test(f.path)] + [n for n in named if not is_test(n)]
    for module in imported_modules(list(dict.fromkeys(tests)), root, failing):
        focus.setdefault(module.path, Frame(module.path)).names |= module.names | module.used
        (tests if is_test(module.path) else code).append(module.path)
    ranked = list(dict.fromkeys(code + tests))
    fallback: list[str] = []
    if all(is_test(p) for p in ranked) and not new:  # no code named: the files worked on before, else the sources
        if not ranked and request_kind.is_chat(text):
            return Choice()  # "Say hello": nothing to show
        earlier = [s.path for s in previous or []]
        fallback = [] if earlier else [f for f in _sources(files or []) if f not in ranked]
        ranked = list(dict.fromkeys(ranked + (earlier or fallback)))
    words = _code_names(text)  # the names the request writes as code: where to look in a long file it names
    for path in ranked:
        focus.setdefault(path, Frame(path)).names |= words
    new = [p for p in new if tests_editable or not is_test(p)]
    if refuse is not None:
        ranked, new = [p for p in ranked if refuse(p) is None], [p for p in new if refuse(p) is None]
    shown = [Shown(p, editable=tests_editable or not is_test(p)) for p in ranked + new]
    return Choice(shown, focus, set(fallback), new)


def _mentions(text: str, root: Path, files: list[str] | None, edit: bool) -> tuple[list[str], list[str]]:
    """The workspace files the request names, and the files it names that are not there yet (to be created, in a
    request for a change; a path inside the workspace, of a code file, in a folder that exists or none)."""
    by_name: dict[str, list[str]] = {}
    for f in files or []:
        by_name.setdefault(f.rsplit("/", 1)[-1], []).append(f)
    named: list[str] = []
    new: list[str] = []
    for match in MENTION.findall(text):
        candidate = match.replace("\\", "/")
        while candidate.startswith("./"):
            candidate = candidate[2:]
        found = resolve(candidate, root)
        if found is None and len(by_name.get(candidate, [])) == 1:
            found = by_name[candidate][0]
        if found is not None:
            named.append(found)
        elif edit and _creatable(root, candidate):
            new.append(candidate)
    return list(dict.fromkeys(named)), list(dict.fromkeys(new))


def _creatable(root: Path, relative: str) -> bool:
    path = Path(relative)
    if path.is_absolute() or ".." in path.parts or path.suffix not in CODE_SUFFIXES or path.name.startswith("."):
        return False
    if path.suffix == ".js" and relative[0].isupper() and "/" not in relative:
        return False  # Node.js, Vue.js: a library's name, not a file to create
    folder = (root / path).parent
    try:
        return not (root / path).exists() and folder.is_dir() and folder.resolve().is_relative_to(root.resolve())
    except OSError:
        return False


def _sources(files: list[str]) -> list[str]:
    """A small workspace's files, when the request names none: its code (tests last); documentation and
    configuration only where there is no code (a README pasted back is no fix)."""
    code = [f for f in files if Path(f).suffix in CODE_SUFFIXES and not f.endswith("__init__.py")]
    if not code:
        return [f for f in files if Path(f).suffix in OTHER_SUFFIXES]
    return sorted(code, key=is_test)


def _code_names(text: str) -> set[str]:
    """The names the request writes as code, the first MAX_NAMES of them (a pasted log holds thousands)."""
    out: set[str] = set()
    for match in CODE_NAME.finditer(text):
        out.add(match.group("tick") or match.group("call") or match.group("name"))
        if len(out) >= MAX_NAMES:
            break
    return out


def current_text(shown: list[Shown], root: Path, limit: int = 2_000_000) -> dict[str, str]:
    """The shown files' text now, as the answer's blocks are read (a file that cannot be read is left out)."""
    out: dict[str, str] = {}
    for item in shown:
        try:
            out[item.path] = read_regular(root / item.path, limit).decode("utf-8")
        except (OSError, SandboxError, UnicodeDecodeError):
            continue
    return out


__all__ = ["Choice", "choose", "current_text", "is_test", "is_workspace_file", "workspace_files"]
