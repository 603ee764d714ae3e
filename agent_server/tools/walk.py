"""Walking the workspace for tools: skip VCS and dependency folders, honour the root .gitignore, match globs."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

import pathspec

from .sandbox import hard_linked

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
    }
)


def gitignore(root: Path) -> pathspec.GitIgnoreSpec | None:
    """The root's .gitignore as a matcher (None if there is none or it cannot be read)."""
    try:
        lines = (root / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def ignored(spec: pathspec.GitIgnoreSpec | None, rel: str, is_dir: bool) -> bool:
    if spec is None:
        return False
    return bool(spec.match_file(rel + "/" if is_dir else rel))


def iter_files(root: Path, start: Path) -> Iterator[Path]:
    """Files under `start` (inside `root`), sorted per folder, without skipped or git-ignored folders and files."""
    spec = gitignore(root)
    if start.is_file():
        yield start
        return
    real_root = root.resolve()
    for dirpath, dirnames, filenames in os.walk(start):
        here = Path(dirpath)
        rel_dir = here.relative_to(root).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not ignored(spec, prefix + d, is_dir=True))
        for name in sorted(filenames):
            path = here / name
            if ignored(spec, prefix + name, is_dir=False) or (path.is_symlink() and not _inside(path, real_root)):
                continue  # a symlink out of the workspace must not be read through a search
            try:
                if hard_linked(path.stat()):
                    continue  # nor a hard link, which may share its content with a file outside (sandbox.py)
            except OSError:
                continue
            yield path


def _inside(path: Path, real_root: Path) -> bool:
    try:
        path.resolve().relative_to(real_root)
    except (ValueError, OSError):
        return False
    return True


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """A glob over `/`-separated paths: `*` and `?` stay within a folder, `**` crosses folders.

    A pattern without `/` matches the file name at any depth (`*.py`), like .gitignore does.
    """
    pattern = pattern.strip().removeprefix("./")
    if "/" not in pattern:
        pattern = "**/" + pattern
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                out.append(re.escape(c))
                i += 1
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end + 1
        elif c == "{":
            end = pattern.find("}", i)
            if end < 0:
                out.append(re.escape(c))
                i += 1
            else:
                options = pattern[i + 1 : end].split(",")
                out.append("(?:" + "|".join(re.escape(o) for o in options) + ")")
                i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out) + r"\Z")
