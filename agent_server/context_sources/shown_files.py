"""The files a request works on, shown to the model in the prompt (for `agent.edit_format = "files"`).

A model that edits by answering with whole files must see them first, as Aider's added files: the files the
request names (a path, or a file name that is unique in the workspace), else, in a small workspace, its source
files, within a token budget. Test files are shown but marked read-only: a lone code block in the answer is never
taken for a test.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..context import estimate_text
from ..errors import SandboxError
from ..tools.sandbox import read_regular
from ..turn.edit_blocks import Shown

MENTION = re.compile(r"[\w./\\-]+\.[A-Za-z0-9]{1,6}\b")
SOURCE_SUFFIXES = {
    ".py",
    ".js",
    ".ts",
    ".tsx",
    ".jsx",
    ".go",
    ".rs",
    ".java",
    ".rb",
    ".c",
    ".h",
    ".cpp",
    ".md",
    ".toml",
    ".json",
    ".lua",
}
SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", ".agent-server", "build", "dist", ".mypy_cache"}
LANGUAGES = {".py": "python", ".js": "javascript", ".ts": "typescript", ".tsx": "tsx", ".go": "go", ".rs": "rust",
             ".java": "java", ".rb": "ruby", ".c": "c", ".h": "c", ".cpp": "cpp", ".lua": "lua", ".md": "markdown",
             ".toml": "toml", ".json": "json"}  # fmt: skip
MAX_BYTES_PER_TOKEN = 8  # a file bigger than this times the budget cannot fit: not read at all
MAX_SCAN = 400  # a workspace with more files than this is not "small": only named files are shown


def is_test(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return (
        name.startswith("test_")
        or name.endswith(("_test.py", ".test.ts", ".test.js", ".spec.ts"))
        or "/tests/" in f"/{path}"
    )


def workspace_files(root: Path) -> list[str] | None:
    """The source files of a small workspace, sorted; None past MAX_SCAN of them (not small: only named files are
    shown). Walked with pruning and stopped early, never the whole tree: this runs at every turn."""
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


def pick(text: str, root: Path, previous: list[Shown] | None = None) -> list[Shown]:
    """The files to show for a request: the ones it names, else a small workspace's source files. A request that
    names only tests ("make tests/test_x.py pass") also gets the code under test: the modules the tests import, else
    the files shown before in the session (a follow-up), else the small workspace's source files."""
    files = workspace_files(root)
    by_name: dict[str, list[str]] = {}
    for f in files or []:
        by_name.setdefault(f.rsplit("/", 1)[-1], []).append(f)
    named: list[str] = []
    for match in MENTION.findall(text):
        candidate = match.replace("\\", "/").lstrip("./")
        if _workspace_file(root, candidate):
            named.append(candidate)
        elif len(by_name.get(candidate, [])) == 1:
            named.append(by_name[candidate][0])
    sources = [f for f in files or [] if not f.endswith("__init__.py")]
    if named and all(is_test(f) for f in named):
        named += _imported_modules(named, root)
    chosen = named or sources
    if all(is_test(f) for f in chosen):
        chosen += [s.path for s in previous or []] or [f for f in sources if not is_test(f)]
    return [Shown(path, editable=not is_test(path)) for path in dict.fromkeys(chosen)]


PY_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+(?P<from>[\w.]+)[ \t]+import|import[ \t]+(?P<import>[\w.]+))", re.M)


def _imported_modules(paths: list[str], root: Path) -> list[str]:
    """The workspace's Python modules that the files at `paths` import (absolute imports only)."""
    out: list[str] = []
    for path in paths:
        if not path.endswith(".py"):
            continue
        try:
            text = read_regular(root / path, 1_000_000).decode("utf-8", "replace")
        except (OSError, SandboxError):
            continue
        for match in PY_IMPORT.finditer(text):
            module = (match.group("from") or match.group("import")).replace(".", "/")
            out += [c for c in (f"{module}.py", f"{module}/__init__.py") if _workspace_file(root, c)]
    return out


def _workspace_file(root: Path, relative: str) -> bool:
    """A regular file inside the workspace (not a link, not outside it however the path is spelled)."""
    full = root / relative
    return full.is_file() and not full.is_symlink() and full.resolve().is_relative_to(root.resolve())


EDIT_WORDS = re.compile(
    r"\b(fix|implement|write|change|add|make|create|update|refactor|rename|remove|delete|solve|complete|edit|"
    r"replace|convert|rewrite|correct|improve)\w*",
    re.I,
)


REMOVAL = re.compile(r"\b(remov|delet|drop|strip|get rid|eliminat|clean ?up|trim|prun)\w*", re.I)


def wants_removal(text: str) -> bool:
    """A request to take something out: a whole-file answer shorter than the file is then the change itself, not an
    excerpt of it to merge."""
    return bool(REMOVAL.search(text))


def current_text(shown: list[Shown], root: Path, limit: int = 2_000_000) -> dict[str, str]:
    """The shown files' text now, as the answer's blocks are read (a file that cannot be read is left out)."""
    out: dict[str, str] = {}
    for item in shown:
        try:
            out[item.path] = read_regular(root / item.path, limit).decode("utf-8")
        except (OSError, SandboxError, UnicodeDecodeError):
            continue
    return out


QUESTION = re.compile(r"^\W*(what|why|how|where|which|who|when|explain|describe|summari[sz]e|tell|show)\b", re.I)


def wants_edit(text: str) -> bool:
    """A request that asks for a change: the answer must be the changed file. A question gets an answer instead:
    told to reply with a file, a small model copies the file back instead of answering."""
    if EDIT_WORDS.search(text):
        return True
    return not ("?" in text or QUESTION.search(text))


def render(shown: list[Shown], root: Path, budget_tokens: int, edit: bool = True) -> tuple[str, list[Shown]]:
    """The files as fenced blocks after their paths, editable ones first, within the budget; what was shown."""
    parts: list[str] = []
    kept: list[Shown] = []
    used = 0
    for item in sorted(shown, key=lambda s: not s.editable):
        try:  # a regular file within the budget only: a FIFO, a device or a huge file named in a request is skipped
            text = read_regular(root / item.path, budget_tokens * MAX_BYTES_PER_TOKEN).decode("utf-8", "replace")
        except (OSError, SandboxError):
            continue
        fence = "```" + LANGUAGES.get(Path(item.path).suffix, "")
        block = f"{item.path}\n{fence}\n{text}{'' if text.endswith(chr(10)) or not text else chr(10)}```"
        cost = estimate_text(block)
        if used + cost > budget_tokens:
            continue
        parts.append(block)
        kept.append(item)
        used += cost
    if not parts:
        return "", []
    ask = _ask(kept) if edit else "Answer the request below from these files, in words; change no file."
    return "The files:\n\n" + "\n\n".join(parts) + "\n\n" + ask, kept


def _ask(kept: list[Shown]) -> str:
    """What to answer, naming the files: a small model copies whichever block it saw last unless told which one."""
    editable = [s.path for s in kept if s.editable]
    fixed = [s.path for s in kept if not s.editable]
    if len(editable) == 1:
        ask = f"Reply with the whole new content of {editable[0]} in one fenced code block, after its path."
    else:
        ask = "Reply with the whole new content of each file you change in one fenced code block, after its path."
    return ask + (f" Do not change {', '.join(fixed)}." if fixed else "")
