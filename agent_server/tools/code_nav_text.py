"""What the code tools read and show: the asked file (through the sandbox and the read_file deny rules), the spot
of its symbol, and places rendered as workspace-relative `path:line` with a few lines each, capped.

Every place a language server or the index names is resolved through the sandbox: one outside the workspace (a
library, a link out) is only counted, one under a read_file deny rule is named without its text. Files are read
off the event loop, each at most MAX_CONTEXT_BYTES (a place in a larger file is named without its text).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..client_contract import AgentClient, CodeLocation, CodeSymbol
from ..errors import SandboxError, ToolError
from .base import Policy, Tool, ToolContext
from .code_position import excerpt, locate, shown_line
from .editing import current_text_via_client
from .sandbox import read_regular, relative, resolve

MAX_CONTEXT_BYTES = 4_000_000
MAX_OUTLINE = 300
_KINDS = {
    1: "file", 2: "module", 3: "namespace", 4: "package", 5: "class", 6: "method", 7: "property", 8: "field",
    9: "constructor", 10: "enum", 11: "interface", 12: "function", 13: "variable", 14: "constant", 15: "string",
    16: "number", 17: "boolean", 18: "array", 19: "object", 20: "key", 21: "null", 22: "enum member", 23: "struct",
    24: "event", 25: "operator", 26: "type parameter",
}  # fmt: skip


class Judge(Protocol):
    """The turn's permission policy, as the code tools use it (`tools/permissions.py`'s PermissionPolicy)."""

    def decide(self, tool: Tool, arguments: dict[str, Any], workspace: Path | str) -> Policy: ...

    def read_refusal(self, path: Path | str, workspace: Path | str) -> str | None: ...


@dataclass(frozen=True)
class QuerySpot:
    """The file a call asks about and the symbol's spot in it (0-based line, code point column)."""

    path: Path
    rel: str
    text: str
    line: int = 0
    character: int = 0
    line_text: str = ""
    name: str = ""
    note: str = ""


async def query_spot(
    ctx: ToolContext, judge: Judge, workspace: Path, args: dict[str, Any], locate_symbol: bool = True
) -> QuerySpot:
    """The asked file's text as the user sees it and, with `locate_symbol`, where its symbol is; fails as read_file
    would (outside the workspace, a deny rule, not a regular UTF-8 file)."""
    path = resolve(ctx.roots, str(args["path"]), must_exist=True)
    rel = relative(ctx.roots, path)
    if path.is_dir():
        raise ToolError(f"{rel} is a folder; name a file")
    refusal = judge.read_refusal(path, workspace)
    if refusal:
        raise ToolError(f"{rel} is not read: {refusal}")
    text = await current_text_via_client(ctx, path, rel)
    if text is None:
        raise ToolError(f"no such file: '{rel}'")
    if not locate_symbol:
        return QuerySpot(path, rel, text)
    symbol = args.get("symbol")
    spot = await asyncio.to_thread(locate, text, int(args["line"]), str(symbol) if symbol else None, rel)
    return QuerySpot(path, rel, text, spot.line, spot.character, spot.line_text, spot.name, spot.note)


def _read(path: Path) -> list[str] | str:
    try:
        return read_regular(path, MAX_CONTEXT_BYTES).decode("utf-8", "replace").split("\n")
    except (OSError, SandboxError) as exc:
        return f"not read: {exc.__class__.__name__}"


async def file_lines(
    client: AgentClient, judge: Judge, workspace: Path, paths: Sequence[Path]
) -> dict[Path, list[str] | str]:
    """Each file's lines (the open buffer, else the disk), or why its text is not shown."""
    out: dict[Path, list[str] | str] = {}
    for path in dict.fromkeys(paths):
        refusal = judge.read_refusal(path, workspace)
        if refusal:
            out[path] = refusal
            continue
        unsaved = client.open_document_text(path)
        out[path] = unsaved.split("\n") if unsaved is not None else await asyncio.to_thread(_read, path)
    return out


async def location_lines(
    ctx: ToolContext, judge: Judge, workspace: Path, found: Sequence[CodeLocation], cap: int, context: bool
) -> tuple[str, int]:
    """The places as `path:line` with the lines around each (`context`, for definitions) or `path:line: text`;
    at most `cap`, then how many more and how many outside the workspace. Returns the text and the count shown."""
    places: list[tuple[Path, int]] = []
    outside = 0
    for loc in found:
        try:
            real = resolve(ctx.roots, str(loc.path))
        except SandboxError:
            outside += 1
            continue
        if (real, loc.line) not in places:
            places.append((real, loc.line))
    total, files = len(places), len({p for p, _ in places})
    places = places[:cap]
    texts = await file_lines(ctx.client, judge, workspace, [p for p, _ in places])
    out = [] if context or not places else [f"{total} in {files} file{'s' if files != 1 else ''}:"]
    for real, line in places:
        rel, got = relative(ctx.roots, real), texts[real]
        if isinstance(got, str):
            out.append(f"{rel}:{line + 1} (its text is not shown: {got})")
        elif context:
            out.append(f"{rel}:{line + 1}\n{excerpt(got, line - 1, line + 3)}")
        else:
            out.append(f"{rel}:{line + 1}: {shown_line(got[line]).strip() if line < len(got) else ''}")
    if total > cap:
        out.append(f"({total - cap} more not shown)")
    if outside:
        out.append(f"({outside} outside the workspace, such as in installed libraries: not shown)")
    return "\n".join(out), len(places)


def outline(symbols: Sequence[CodeSymbol]) -> str:
    """A file's symbols, one a line, indented by nesting: `12-30 class Parser`."""
    if not symbols:
        return "(no symbols)"
    lines = []
    for s in symbols[:MAX_OUTLINE]:
        name = " ".join(s.name.split())
        detail = " ".join(s.detail.split())[:80]
        kind = _KINDS.get(s.kind, "symbol")
        indent = "  " * min(s.depth, 6)
        lines.append(f"{indent}{s.line + 1}-{s.end_line + 1} {kind} {name}" + (f"  {detail}" if detail else ""))
    if len(symbols) > MAX_OUTLINE:
        lines.append(f"({len(symbols) - MAX_OUTLINE} more not shown)")
    return "\n".join(lines)
