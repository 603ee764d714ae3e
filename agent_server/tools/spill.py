"""Results too big for the model's window: the first page goes to the model, the whole text stays here.

Command output and MCP results cannot be asked for again by line range the way a file can, and running a
command twice may not give the same output. So when such a result is bigger than the page budget of the
turn (`ToolContext.page_chars`), the full text is kept in a per-session spill store, in memory and bounded,
and the model gets its first page with a marker naming `read_output` and the next line to ask for.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from pydantic import Field

from ..errors import ToolError
from .base import Tool, ToolContext, ToolResult
from .definition import BuiltinTool, ToolArgs

MAX_ENTRIES = 32  # per process, oldest dropped first
MAX_CHARS = 8_000_000  # all entries together


class SpillStore:
    """Full texts of paged results, keyed by session and a short id (`out-1`, `out-2`, …)."""

    def __init__(self, max_entries: int = MAX_ENTRIES, max_chars: int = MAX_CHARS) -> None:
        self.max_entries = max_entries
        self.max_chars = max_chars
        self._items: OrderedDict[tuple[str, str], str] = OrderedDict()
        self._count = 0
        self._lock = threading.Lock()

    def put(self, session_id: str, text: str) -> str:
        with self._lock:
            self._count += 1
            ident = f"out-{self._count}"
            self._items[(session_id, ident)] = text
            while self._items and (
                len(self._items) > self.max_entries or sum(len(t) for t in self._items.values()) > self.max_chars
            ):
                self._items.popitem(last=False)
            return ident

    def get(self, session_id: str, ident: str) -> str | None:
        with self._lock:
            return self._items.get((session_id, ident))


SPILL = SpillStore()


def page_lines(text: str, first: int, budget: int) -> tuple[str, int, int]:
    """(page, last line shown, total lines): lines from `first` (1-based) that fit in `budget` characters."""
    lines = text.splitlines()
    total = len(lines)
    if total == 0:
        return "", 0, 0
    if first > total:
        raise ToolError(f"start_line {first} is past the end of the output, which has {total} lines")
    room = budget
    out: list[str] = []
    for line in lines[first - 1 :]:
        if len(line) + 1 > room:
            if not out:  # one huge line: show its head rather than nothing
                out.append(line[: max(0, room - 20)] + " …")
            break
        out.append(line)
        room -= len(line) + 1
    return "\n".join(out), first + len(out) - 1, total


def spill_page(session_id: str, what: str, text: str, budget: int | None) -> str:
    """`text` itself when it fits `budget`, else its first page, with the rest kept for `read_output`."""
    if budget is None or len(text) <= budget:
        return text
    ident = SPILL.put(session_id, text)
    page, last, total = page_lines(text, 1, max(200, budget - 260))
    return page + _marker(what, ident, 1, last, total, len(text))


def _marker(what: str, ident: str, first: int, last: int, total: int, chars: int) -> str:
    more = f"; call read_output with id={ident!r} and start_line={last + 1} for more" if last < total else ""
    return (
        f"\n[page: lines {first}-{last} of {total} of this {what} ({chars} characters), to fit the model's "
        f"context window{more}]"
    )


class ReadOutputArgs(ToolArgs):
    id: str
    """The id named in the page marker, e.g. 'out-1'."""
    start_line: int | None = Field(default=None, ge=1)
    """First line to show."""


class ReadOutput(BuiltinTool[ReadOutputArgs]):
    name = "read_output"
    description = "Read more of a long command output or MCP result that was shown one page at a time."
    args = ReadOutputArgs
    kind = "read"
    policy = "allow"
    offered = False  # offered with the tools whose results are paged this way (registry.py)

    def title(self, args: dict[str, Any]) -> str:
        return f"Read output {args.get('id', '')}"

    async def run(self, ctx: ToolContext, args: ReadOutputArgs) -> ToolResult:
        text = SPILL.get(ctx.session_id, args.id)
        if text is None:
            raise ToolError(f"no kept output '{args.id}' in this session (only the latest {MAX_ENTRIES} are kept)")
        first = args.start_line or 1
        budget = max(200, (ctx.page_chars or len(text) + 300) - 260)
        page, last, total = page_lines(text, first, budget)
        return ToolResult(text=page + _marker("output", args.id, first, last, total, len(text)))


def read_output_tool() -> Tool:
    return ReadOutput().tool()
