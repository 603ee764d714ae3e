"""find_files (glob over paths) and search_text (regex over contents), skipping ignored and binary files.

Patterns run on RE2 (linear_regex.py) and only regular files up to SEARCH_MAX_BYTES are read (never a FIFO or a
device), in a worker thread that stops when the call is cancelled (walk.run_stoppable): no input can freeze the
server or keep a worker busy for good.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from pydantic import Field

from .. import acp
from ..errors import SandboxError, ToolError
from .base import LeanForm, ToolContext, ToolResult
from .definition import STRING, BuiltinTool, ToolArgs, lean_object, path_location, short
from .filetypes import SNIFF_BYTES, is_binary
from .linear_regex import LinearPattern, UnsupportedPatternError, compile_linear
from .sandbox import read_regular, relative, resolve, root_of
from .walk import compile_glob, iter_files, run_stoppable

FIND_LIMIT = 200
MATCH_LIMIT = 100
LINE_CHARS = 300
SEARCH_MAX_BYTES = 2_000_000


def _glob(pattern: str) -> LinearPattern:
    try:
        return compile_glob(pattern)
    except UnsupportedPatternError as exc:
        raise ToolError(f"invalid glob {pattern!r}: {exc}") from None


def _find(ctx: ToolContext, pattern: str, stop: threading.Event) -> str:
    matcher = _glob(pattern)
    found: list[str] = []
    for root in ctx.roots:
        real = Path(root).resolve()
        for file in iter_files(real, real, stop):
            rel = relative(ctx.roots, file)
            if matcher.match(rel):
                found.append(rel)
    if not found:
        return f"No files match '{pattern}'."
    more = (
        f"\n(showing {FIND_LIMIT} of {len(found)} matches; use a narrower pattern)" if len(found) > FIND_LIMIT else ""
    )
    return f"{len(found)} files match '{pattern}':\n" + "\n".join(found[:FIND_LIMIT]) + more


def _search(
    ctx: ToolContext, regex: LinearPattern, start: Path, glob: str | None, skip: int, stop: threading.Event
) -> str:
    matcher = _glob(glob) if glob else None
    hits: list[str] = []
    total = 0
    files_with_hits = 0
    # A page that fits the model's window (the header and the marker take about 200 characters).
    room = (ctx.page_chars or 1 << 62) - 200
    full = False
    for file in iter_files(root_of(ctx.roots, start), start, stop):
        rel = relative(ctx.roots, file)
        if matcher is not None and not matcher.match(rel):
            continue
        if ctx.hidden is not None and ctx.hidden(rel):
            continue  # a read_file deny rule covers it: its lines are not shown this way either
        try:
            data = read_regular(file, SEARCH_MAX_BYTES)
        except (OSError, SandboxError):
            continue  # too big, gone, or not a regular file
        if is_binary(data[:SNIFF_BYTES]):
            continue
        found_here = False
        for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
            if regex.search(line):
                total += 1
                found_here = True
                if total > skip and len(hits) < MATCH_LIMIT and not full:
                    shown = line.strip()
                    if len(shown) > LINE_CHARS:
                        shown = shown[:LINE_CHARS] + " …"
                    hit = f"{rel}:{number}: {shown}"
                    if len(hit) + 1 > room and hits:
                        full = True
                        continue
                    room -= len(hit) + 1
                    hits.append(hit)
        files_with_hits += found_here
    if not hits:
        if skip and total:
            return f"No matches for /{regex.pattern}/ after skipping {skip} (there are {total})."
        return f"No matches for /{regex.pattern}/."
    head = f"{total} matches in {files_with_hits} files"
    if skip:
        head += f" (matches {skip + 1}-{skip + len(hits)} shown)"
    rest = total - skip - len(hits)
    more = (
        f"\n({rest} more matches not shown; call search_text again with skip={skip + len(hits)}, "
        "or narrow the pattern, path or glob)"
        if rest > 0
        else ""
    )
    return f"{head}:\n" + "\n".join(hits) + more


class FindFilesArgs(ToolArgs):
    pattern: str
    """Glob, e.g. '**/test_*.py'."""


class FindFiles(BuiltinTool[FindFilesArgs]):
    name = "find_files"
    description = (
        "Find files by glob over workspace-relative paths: '*.py' matches at any depth, 'src/**/*.ts' under "
        "src, '*' and '?' stay within one folder. Ignored folders (.git, node_modules, .venv) are skipped."
    )
    args = FindFilesArgs
    kind = "search"
    policy = "allow"
    lean = LeanForm("Find files by glob ('**/*.py').", lean_object(["pattern"]), 30)

    def title(self, args: dict[str, Any]) -> str:
        return f"Find files `{short(args['pattern'])}`"

    async def run(self, ctx: ToolContext, args: FindFilesArgs) -> ToolResult:
        pattern = args.pattern.strip()
        if not pattern:
            raise ToolError("pattern is empty; give a glob such as '**/*.py' or 'src/*.ts'")
        return ToolResult(text=await run_stoppable(lambda stop: _find(ctx, pattern, stop)))


class SearchTextArgs(ToolArgs):
    pattern: str
    """Regular expression (RE2: no backreferences)."""
    path: str | None = None
    """File or folder to search (default: the whole workspace)."""
    glob: str | None = None
    """Only files whose path matches this glob."""
    skip: int | None = Field(default=None, ge=0)
    """Skip this many matches (next page)."""


class SearchText(BuiltinTool[SearchTextArgs]):
    name = "search_text"
    description = (
        "Search file contents with a regular expression; prints 'path:line: text'. Optional path "
        "(file or folder) and glob (e.g. '*.py') narrow the search. Use (?i) for case-insensitive."
    )
    args = SearchTextArgs
    kind = "search"
    policy = "allow"
    lean = LeanForm("Regex search in files; prints path:line: text.", lean_object(["pattern"], path=STRING), 40)

    def title(self, args: dict[str, Any]) -> str:
        return f"Search `{short(args['pattern'])}`" + (f" in {args['path']}" if args.get("path") else "")

    def locations(self, ctx: ToolContext, args: dict[str, Any]) -> list[acp.ToolCallLocation]:
        return path_location(ctx, args) if args.get("path") else []

    async def run(self, ctx: ToolContext, args: SearchTextArgs) -> ToolResult:
        try:
            regex = compile_linear(args.pattern)
        except UnsupportedPatternError as exc:
            raise ToolError(f"invalid regular expression {args.pattern!r}: {exc}") from None
        start = resolve(ctx.roots, args.path or ".", must_exist=True)
        skip = max(0, args.skip or 0)
        glob = args.glob
        return ToolResult(text=await run_stoppable(lambda stop: _search(ctx, regex, start, glob, skip, stop)))
