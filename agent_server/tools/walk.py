"""Walking the workspace for tools: skip VCS and dependency folders, honour the root .gitignore, match globs.

Only regular files are yielded (never a FIFO, a device or a socket, nor a link to one: reading them can block or
never end); folder links are not followed, so a link loop cannot trap the walk, and a file link that loops is
skipped. Globs become RE2 patterns (linear_regex.py): `a**a**a**…b` cannot backtrack. A walk runs in a worker
thread that checks a stop flag between files, so a cancelled tool call stops it (`run_stoppable`).
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
import threading
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

import pathspec

from ..errors import SandboxError
from .linear_regex import LinearPattern, compile_linear
from .sandbox import hard_linked, read_regular

GITIGNORE_MAX_BYTES = 1_000_000
T = TypeVar("T")


class Stopped(Exception):
    """The walk's caller was cancelled."""


async def run_stoppable(work: Callable[[threading.Event], T]) -> T:
    """Run `work(stop)` in a thread; if the caller is cancelled, set `stop` (the work checks it and ends soon)."""
    stop = threading.Event()
    task = asyncio.ensure_future(asyncio.to_thread(work, stop))
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        stop.set()
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # a Stopped there is expected
        raise


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
        data = read_regular(root / ".gitignore", GITIGNORE_MAX_BYTES, truncate=True)
    except (OSError, SandboxError):
        return None  # missing, a FIFO or a device (`.gitignore -> /dev/zero`): no rules rather than a hang
    lines = data.decode("utf-8", errors="replace").splitlines()
    return pathspec.GitIgnoreSpec.from_lines(lines)


def ignored(spec: pathspec.GitIgnoreSpec | None, rel: str, is_dir: bool) -> bool:
    if spec is None:
        return False
    return bool(spec.match_file(rel + "/" if is_dir else rel))


def iter_files(root: Path, start: Path, stop: threading.Event | None = None) -> Iterator[Path]:
    """Regular files under `start` (inside `root`), sorted per folder, without skipped or git-ignored folders and
    files; raises Stopped once `stop` is set."""
    spec = gitignore(root)
    if start.is_file():
        yield start
        return
    real_root = Path(os.path.realpath(root))
    for dirpath, dirnames, filenames in os.walk(start):
        if stop is not None and stop.is_set():
            raise Stopped()
        here = Path(dirpath)
        rel_dir = here.relative_to(root).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not ignored(spec, prefix + d, is_dir=True))
        for name in sorted(filenames):
            path = here / name
            if ignored(spec, prefix + name, is_dir=False) or (path.is_symlink() and not _inside(path, real_root)):
                continue  # a symlink out of the workspace (or a loop) must not be read through a search
            try:
                st = path.stat()
            except OSError:
                continue  # gone, or a link loop
            if not stat.S_ISREG(st.st_mode) or hard_linked(st):
                continue  # a FIFO or device blocks or never ends; a hard link may share an outside file
            yield path


def _inside(path: Path, real_root: Path) -> bool:
    real = Path(os.path.realpath(path))
    return real == real_root or real.is_relative_to(real_root)


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> LinearPattern:
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
    return compile_linear("".join(out) + r"\z")
