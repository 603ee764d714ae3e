"""read_file and list_directory: what the model uses to look at the workspace (unsaved editor text wins)."""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

from pydantic import Field

from .. import acp
from ..errors import ToolError
from .base import LeanForm, ToolContext, ToolResult
from .client_files import buffer_text
from .definition import INTEGER, STRING, BuiltinTool, ToolArgs, lean_object, path_location
from .filetypes import SNIFF_BYTES, describe_type, human_size, is_binary
from .sandbox import NotRegularFileError, open_regular, relative, resolve, root_of
from .walk import SKIP_DIRS, gitignore, ignored

HUGE_BYTES = 512_000
SUMMARY_LINES = 20
LIST_LIMIT = 500


def _numbered(lines: list[str], first: int) -> str:
    return "\n".join(f"{n}\t{line}" for n, line in enumerate(lines, start=first))


def _range(total: int, start: int | None, end: int | None, rel: str) -> tuple[int, int]:
    first = start or 1
    last = min(end or total, total)
    if end is not None and end < first:
        raise ToolError(f"end_line ({end}) is before start_line ({first})")
    if total and first > total:
        raise ToolError(f"start_line {first} is past the end of {rel}, which has {total} lines")
    return first, last


def _fit_lines(lines: list[str], first: int, budget: int | None, used: int) -> int:
    """How many of `lines` (numbered from `first`) fit in `budget` characters after `used`; at least one."""
    if budget is None:
        return len(lines)
    room = budget - used
    count = 0
    for n, line in enumerate(lines, start=first):
        room -= len(line) + len(str(n)) + 2  # the number, a tab and the newline
        if room < 0:
            break
        count += 1
    return max(1, count)


def _page_marker(first: int, last: int, total: int | None) -> str:
    of = f" of {total}" if total else ""
    return (
        f"\n[page: lines {first}-{last}{of} shown, to fit the model's context window; "
        f"call read_file with start_line={last + 1} for more]"
    )


def _render(rel: str, text: str, start: int | None, end: int | None, note: str = "", budget: int | None = None) -> str:
    lines = text.splitlines()
    total = len(lines)
    if total == 0:
        return f"{rel} is empty{note}."
    first, last = _range(total, start, end, rel)
    wanted = lines[first - 1 : last]
    shown = _fit_lines(wanted, first, budget, len(rel) + len(note) + 140)
    if shown < len(wanted):
        last = first + shown - 1
        header = f"{rel} (lines {first}-{last} of {total}{note})"
        return header + "\n" + _numbered(wanted[:shown], first) + _page_marker(first, last, total)
    header = f"{rel} (lines {first}-{last} of {total}{note})"
    return header + "\n" + _numbered(wanted, first)


def _huge_range(path: Path, rel: str, start: int | None, end: int | None, budget: int | None = None) -> str:
    """Stream just the asked lines of a huge text file."""
    first = start or 1
    last = end or first + 199
    if last < first:
        raise ToolError(f"end_line ({last}) is before start_line ({first})")
    with open_regular(path) as fh:
        picked = [_decode_line(line) for line in itertools.islice(_bounded_lines(fh), first - 1, last)]
    if not picked:
        raise ToolError(f"start_line {first} is past the end of {rel}")
    shown = _fit_lines(picked, first, budget, len(rel) + 140)
    last = first + shown - 1
    marker = _page_marker(first, last, None) if shown < len(picked) else ""
    return f"{rel} (lines {first}-{last}, a huge file)\n" + _numbered(picked[:shown], first) + marker


LINE_MAX_BYTES = 64_000  # a longer line (a minified bundle, a data dump) keeps its start


def _bounded_lines(fh: BinaryIO) -> Iterator[bytes]:
    """The file's lines, each cut to LINE_MAX_BYTES: a 1 GB file without newlines is not one 1 GB line in memory."""
    while line := fh.readline(LINE_MAX_BYTES):
        if len(line) == LINE_MAX_BYTES and not line.endswith(b"\n"):
            while (rest := fh.readline(LINE_MAX_BYTES)) and not rest.endswith(b"\n"):
                pass  # skip the rest of the over-long line
            line += b" [... line cut]"
        yield line


def _decode_line(line: bytes) -> str:
    return line.decode("utf-8", errors="replace").rstrip("\r\n")


def _summary(path: Path, rel: str, size: int, head: bytes, budget: int | None = None) -> str:
    kind = describe_type(path, head)
    if is_binary(head):
        return f"{rel}: binary file ({kind}, {human_size(size)}); its bytes are not shown."
    with open_regular(path) as fh:
        count = sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    first = head.decode("utf-8", errors="replace").splitlines()[:SUMMARY_LINES]
    first = first[: _fit_lines(first, 1, budget, len(rel) + 200)]
    return (
        f"{rel}: huge text file ({kind}, {human_size(size)}, about {count} lines); not shown whole.\n"
        f"Read a part with start_line/end_line, or use search_text. First {len(first)} lines:\n" + _numbered(first, 1)
    )


def _read_disk(path: Path, rel: str, start: int | None, end: int | None, budget: int | None = None) -> str:
    if path.is_dir():
        raise ToolError(f"{rel} is a directory; use list_directory to see what it holds")
    try:
        fh = open_regular(path)
    except NotRegularFileError:
        raise ToolError(
            f"{rel} is not a regular file (a FIFO, a device or a socket): reading it could block or never end"
        ) from None
    with fh:
        size = os.fstat(fh.fileno()).st_size
        head = fh.read(SNIFF_BYTES)
        if is_binary(head):
            return _summary(path, rel, size, head)
        if size > HUGE_BYTES:
            if start is None and end is None:
                return _summary(path, rel, size, head, budget)
            return _huge_range(path, rel, start, end, budget)
        # Read at most what the size promised (and a little): a file that keeps growing cannot exhaust memory.
        data = head + fh.read(HUGE_BYTES + 1 - len(head))
    text = data[:HUGE_BYTES].decode("utf-8", errors="replace")
    return _render(rel, text, start, end, budget=budget)


def _list(root: Path, path: Path, rel: str) -> str:
    if not path.is_dir():
        raise ToolError(f"{rel} is a file, not a directory; use read_file to read it")
    spec = gitignore(root)
    prefix = "" if rel == "." else rel + "/"
    shown: list[str] = []
    hidden = 0
    for entry in sorted(path.iterdir(), key=lambda p: p.name):
        is_dir = entry.is_dir()
        if entry.name == ".git" or (is_dir and entry.name in SKIP_DIRS) or ignored(spec, prefix + entry.name, is_dir):
            hidden += 1
            continue
        shown.append(entry.name + ("/" if is_dir else ""))
    body = "\n".join(shown[:LIST_LIMIT]) if shown else "(empty)"
    notes = []
    if len(shown) > LIST_LIMIT:
        notes.append(f"{len(shown) - LIST_LIMIT} more entries not shown")
    if hidden:
        notes.append(f"{hidden} ignored entries hidden (.git, dependencies, .gitignore)")
    tail = f"\n({'; '.join(notes)})" if notes else ""
    return f"{rel}/ ({len(shown)} entries; folders end with /)\n{body}{tail}"


class ReadFileArgs(ToolArgs):
    path: str
    """Path relative to the workspace root."""
    start_line: int | None = Field(default=None, ge=1)
    """First line (1-based)."""
    end_line: int | None = Field(default=None, ge=1)
    """Last line, inclusive."""


class ReadFile(BuiltinTool[ReadFileArgs]):
    name = "read_file"
    description = (
        "Read a text file (the editor's unsaved text if it is open), with line numbers. Use start_line and "
        "end_line (1-based, inclusive) for part of a long file. Binary and huge files get a summary."
    )
    args = ReadFileArgs
    kind = "read"
    policy = "allow"
    touches = "reads"
    lean = LeanForm("Read a file (numbered lines).", lean_object(["path"], start_line=INTEGER, end_line=INTEGER), 10)

    def title(self, args: dict[str, Any]) -> str:
        start, end = args.get("start_line"), args.get("end_line")
        span = f":{start or 1}-{end}" if end else (f":{start}-" if start else "")
        return f"Read {args['path']}{span}"

    def locations(self, ctx: ToolContext, args: dict[str, Any]) -> list[acp.ToolCallLocation]:
        return path_location(ctx, args)

    async def run(self, ctx: ToolContext, args: ReadFileArgs) -> ToolResult:
        path = resolve(ctx.roots, args.path, must_exist=True)
        rel = relative(ctx.roots, path)
        start, end = args.start_line, args.end_line
        unsaved = await buffer_text(ctx, path)
        if unsaved is not None:
            text = _render(rel, unsaved, start, end, note=", unsaved editor buffer", budget=ctx.page_chars)
        else:
            text = await asyncio.to_thread(_read_disk, path, rel, start, end, ctx.page_chars)
        line = (start - 1) if start else 0
        return ToolResult(text=text, locations=[acp.ToolCallLocation(path=str(path), line=line)])


class ListDirectoryArgs(ToolArgs):
    path: str | None = None
    """Folder relative to the workspace ('.' = root)."""


class ListDirectory(BuiltinTool[ListDirectoryArgs]):
    name = "list_directory"
    description = "List a folder of the workspace; folders end with '/'. Git-ignored entries are hidden."
    args = ListDirectoryArgs
    kind = "read"
    policy = "allow"
    touches = "lists"
    lean = LeanForm("List a folder.", lean_object([], path=STRING), 20)

    def title(self, args: dict[str, Any]) -> str:
        return f"List {args.get('path') or '.'}"

    def locations(self, ctx: ToolContext, args: dict[str, Any]) -> list[acp.ToolCallLocation]:
        return path_location(ctx, args)

    async def run(self, ctx: ToolContext, args: ListDirectoryArgs) -> ToolResult:
        path = resolve(ctx.roots, args.path or ".", must_exist=True)
        rel = relative(ctx.roots, path)
        root = root_of(ctx.roots, path)
        text = await asyncio.to_thread(_list, root, path, rel)
        return ToolResult(text=text, locations=[acp.ToolCallLocation(path=str(path))])
