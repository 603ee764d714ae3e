"""codebase_search: ranked code chunks from the workspace index (built by `agent_server.index`)."""

from __future__ import annotations

from pathlib import Path, PurePath
from typing import Any

from pydantic import Field

from .. import acp
from .base import LeanForm, ToolContext, ToolResult
from .code_index import CodeIndex, SearchHit
from .definition import BuiltinTool, ToolArgs, lean_object, short
from .sandbox import relative
from .search_query import shorten_query

NOT_BUILT = (
    "The code index is not built yet: run `agent-server index` or the 'Index workspace' command. "
    "Meanwhile use search_text (regex) or find_files (glob)."
)
SNIPPET_LINES = 12


def _absolute(ctx: ToolContext, path: str | PurePath) -> Path:
    p = Path(path)
    return p if p.is_absolute() else Path(ctx.roots[0]) / p


class CodebaseSearchArgs(ToolArgs):
    query: str
    """What you are looking for, in words or identifiers."""
    limit: int | None = Field(default=None, ge=1, le=50)
    """Most results (default 8)."""
    files: bool | None = None
    """Rank distinct files (each with its best line ranges) instead of snippets."""


class CodebaseSearch(BuiltinTool[CodebaseSearchArgs]):
    name = "codebase_search"
    description = (
        "Find code by meaning or by name (functions, classes, concepts) in the workspace index; returns the "
        "best-ranked snippets with their paths and line ranges."
    )
    args = CodebaseSearchArgs
    kind = "search"
    policy = "allow"
    lean = LeanForm("Find code by meaning or name.", lean_object(["query"]), 80, only_if_named=True)

    def title(self, args: dict[str, Any]) -> str:
        return f"Search code for '{short(args['query'])}'"

    async def run(self, ctx: ToolContext, args: CodebaseSearchArgs) -> ToolResult:
        index: CodeIndex | None = ctx.services.get("index")
        if index is None:
            return ToolResult(text=NOT_BUILT)
        query, note = shorten_query(args.query)  # a pasted bug report keeps its distinctive part
        result = await _search(ctx, index, query, args)
        if note:
            result.text = f"({note})\n\n{result.text}"
        return result


async def _search(ctx: ToolContext, index: CodeIndex, query: str, args: CodebaseSearchArgs) -> ToolResult:
    if args.files:
        return await _files(ctx, index, query, args.limit or 8)
    hits = [h for h in await index.search(query, args.limit or 8) if not _hidden(ctx, h.path)]
    if not hits:
        return ToolResult(text=f"No indexed code matches '{query[:200]}'. Try search_text with a regex.")
    parts: list[str] = []
    locations: list[acp.ToolCallLocation] = []
    for n, hit in enumerate(hits, start=1):
        full = _absolute(ctx, hit.path)
        rel = relative(ctx.roots, full)
        lines = hit.snippet.splitlines()
        snippet = "\n".join(f"{hit.start_line + i}\t{line}" for i, line in enumerate(lines[:SNIPPET_LINES]))
        more = f"\n\t… ({len(lines) - SNIPPET_LINES} more lines)" if len(lines) > SNIPPET_LINES else ""
        parts.append(f"{n}. {rel}:{hit.start_line}-{hit.end_line} (score {hit.score:.2f})\n{snippet}{more}")
        locations.append(acp.ToolCallLocation(path=str(full), line=max(hit.start_line - 1, 0)))
    return ToolResult(text="\n\n".join(parts), locations=locations)


FILE_SNIPPET_LINES = 6  # a file list is for choosing what to read: the best chunk's head, the rest as line ranges


async def _files(ctx: ToolContext, index: CodeIndex, query: str, limit: int) -> ToolResult:
    files = [f for f in await index.search_files(query, limit) if not _hidden(ctx, f.path)]
    if not files:
        return ToolResult(text=f"No indexed code matches '{query}'. Try search_text with a regex.")
    parts: list[str] = []
    locations: list[acp.ToolCallLocation] = []
    for n, f in enumerate(files, start=1):
        full = _absolute(ctx, f.path)
        ranges = ", ".join(f"{h.start_line}-{h.end_line}" + _symbol_label(h) for h in f.chunks)
        text = f"{n}. {relative(ctx.roots, full)} (score {f.score:.2f}): {ranges}"
        if f.chunks:
            best = f.chunks[0]
            lines = best.snippet.splitlines()[:FILE_SNIPPET_LINES]
            text += "\n" + "\n".join(f"{best.start_line + i}\t{line}" for i, line in enumerate(lines))
            locations.append(acp.ToolCallLocation(path=str(full), line=max(best.start_line - 1, 0)))
        parts.append(text)
    return ToolResult(text="\n\n".join(parts), locations=locations)


def _hidden(ctx: ToolContext, path: str | PurePath) -> bool:
    """A file a read_file deny rule covers: its chunks are not shown this way either."""
    return ctx.hidden is not None and ctx.hidden(relative(ctx.roots, _absolute(ctx, path)))


def _symbol_label(hit: SearchHit) -> str:
    symbol = getattr(hit, "symbol", None)  # index hits carry one; the protocol does not require it
    return f" {symbol}" if symbol else ""
