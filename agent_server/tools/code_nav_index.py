"""find_definition and find_references from the workspace index, where no language server answers: definitions
from its `defs` table, uses from the files its `refs` table says name the symbol, each line found again in the
file as it is now. Matched by name only, and every result says so."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ..errors import SandboxError, ToolError
from .base import ToolContext, ToolResult
from .code_index import SymbolIndex
from .code_nav_text import Judge, file_lines
from .code_position import clean_symbol, definition_line, excerpt, shown_line, uses
from .sandbox import relative, resolve

FROM_INDEX = "from the index, not a language server: matched by name only"
MAX_DEFINERS = 50  # chunks asked of the index
MAX_DEFINITIONS = 10  # shown
MAX_USER_FILES = 100  # files searched for uses
MAX_REFERENCES = 50  # lines shown
MIN_REF_LEN = 3  # the index keeps no shorter names in `refs` (index/prepare.py)


def _prefix(ctx: ToolContext, path: str | None) -> str | None:
    """`path` (a file or folder) as a workspace-relative prefix; None for the whole workspace."""
    if not path:
        return None
    rel = relative(ctx.roots, resolve(ctx.roots, path, must_exist=True))
    return None if rel == "." else rel


def _under(rel: str, prefix: str | None) -> bool:
    return prefix is None or rel == prefix or rel.startswith(prefix.rstrip("/") + "/")


def _resolved(ctx: ToolContext, rels: list[str]) -> list[Path]:
    out: list[Path] = []
    for rel in rels:
        try:
            out.append(resolve(ctx.roots, rel))
        except SandboxError:
            continue  # a file the index knows but the sandbox refuses now (a link out): not shown
    return out


async def index_definitions(
    ctx: ToolContext, index: SymbolIndex, judge: Judge, workspace: Path, symbol: str, path: str | None
) -> ToolResult:
    name = clean_symbol(symbol)
    prefix = _prefix(ctx, path)
    chunks = [c for c in await index.definitions(name, MAX_DEFINERS) if _under(c.path, prefix)]
    paths = _resolved(ctx, list(dict.fromkeys(c.path for c in chunks)))
    texts = await file_lines(ctx.client, judge, workspace, paths)
    by_rel = {relative(ctx.roots, p): p for p in paths}

    def render() -> list[str]:
        out: list[str] = []
        for c in chunks[:MAX_DEFINITIONS]:
            real = by_rel.get(c.path)
            got = texts.get(real) if real is not None else None
            if got is None:
                continue
            if isinstance(got, str):
                out.append(f"{c.path}:{c.start_line} (its text is not shown: {got})")
                continue
            line = definition_line(got, c.start_line - 1, c.end_line - 1, name)
            out.append(f"{c.path}:{line + 1}\n{excerpt(got, line - 1, line + 3)}")
        if len(chunks) > MAX_DEFINITIONS:
            out.append(f"({len(chunks) - MAX_DEFINITIONS} more not shown)")
        return out

    body = await asyncio.to_thread(render)
    if not body:
        return ToolResult(text=f"The index knows no definition of `{name}` ({FROM_INDEX}). It may be defined "
                          "outside the workspace, or the index is out of date: try search_text.")  # fmt: skip
    return ToolResult(text=f"Definition of `{name}` ({FROM_INDEX}):\n" + "\n".join(body))


async def index_references(
    ctx: ToolContext, index: SymbolIndex, judge: Judge, workspace: Path, symbol: str, path: str | None
) -> ToolResult:
    name = clean_symbol(symbol)
    if len(name) < MIN_REF_LEN:
        raise ToolError(f"the index keeps no names shorter than {MIN_REF_LEN} characters; use search_text")
    prefix = _prefix(ctx, path)
    rels = [r for r in await index.users(name, MAX_USER_FILES + 1) if _under(r, prefix)]
    more_files = len(rels) > MAX_USER_FILES
    paths = _resolved(ctx, rels[:MAX_USER_FILES])
    texts = await file_lines(ctx.client, judge, workspace, paths)

    def render() -> tuple[list[str], int, int]:
        shown: list[str] = []
        total = files = 0
        for real in paths:
            got, rel = texts[real], relative(ctx.roots, real)
            if isinstance(got, str):
                files += 1
                shown.append(f"{rel} (its text is not shown: {got})")
                continue
            found = uses(got, name)
            total += len(found)
            files += bool(found)
            shown.extend(
                f"{rel}:{n + 1}: {shown_line(got[n]).strip()}" for n in found[: max(0, MAX_REFERENCES - len(shown))]
            )
        return shown, total, files

    shown, total, files = await asyncio.to_thread(render)
    if not shown:
        return ToolResult(text=f"The index knows no use of `{name}` ({FROM_INDEX}); try search_text.")
    head = f"References to `{name}` ({FROM_INDEX}): {total} in {files} file{'s' if files != 1 else ''}:"
    if total > len(shown):
        shown.append(f"({total - len(shown)} more not shown)")
    if more_files:
        shown.append(f"(only the first {MAX_USER_FILES} files that use the name were searched; pass path to narrow)")
    return ToolResult(text=head + "\n" + "\n".join(shown))
