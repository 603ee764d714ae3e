"""The editor's language servers as tools: find_definition, find_references, hover, document_symbols and
rename_symbol, offered only where they can be served.

An editor that answers `agent/_code` (`ClientFeatures.code`, announced at initialize) serves each request it lists.
Without one (the terminal, ACP, another editor) find_definition and find_references come from the workspace index
when there is one, matched by name and saying so; the others are not offered. With neither, nothing is offered and
the prompt is what it was without this feature. The model names a line and a symbol; the column is found here
(code_position.py). Results are bounded: workspace-relative paths, a few lines each, a capped count; a file under a
read_file deny rule is named but not shown, and places outside the workspace are only counted.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from .. import acp
from ..client_contract import ClientCode, ClientFeatures, CodeLocation
from ..errors import SandboxError, ToolError
from .base import Policy, Services, Tool, ToolContext, ToolResult
from .code_index import SymbolIndex
from .code_nav_index import index_definitions, index_references
from .code_nav_text import Judge, location_lines, outline, query_spot
from .code_rename import KIND as RENAME_KIND
from .code_rename import POLICY as RENAME_POLICY
from .code_rename import RENAME_SYMBOL, RenameSymbol
from .sandbox import resolve

FIND_DEFINITION, FIND_REFERENCES, HOVER = "find_definition", "find_references", "hover"
DOCUMENT_SYMBOLS = "document_symbols"
# Each code tool's kind and default policy (an editor's and the index's form alike): a look is allowed by default.
CODE_TOOLS: dict[str, tuple[acp.ToolKind, Policy]] = {
    FIND_DEFINITION: ("read", "allow"),
    FIND_REFERENCES: ("read", "allow"),
    HOVER: ("read", "allow"),
    DOCUMENT_SYMBOLS: ("read", "allow"),
    RENAME_SYMBOL: (RENAME_KIND, RENAME_POLICY),
}
FROM_EDITOR = "from the editor's language server"
MAX_DEFINITIONS = 10
MAX_REFERENCES = 50
MAX_HOVER_CHARS = 3000

_PATH = {"type": "string", "description": "The file, relative to the workspace."}
_LINE = {"type": "integer", "minimum": 1, "description": "A 1-based line of that file where the symbol appears."}
_SYMBOL = {"type": "string", "description": "The name on that line (default: the first name on it)."}


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _where(args: dict[str, Any]) -> str:
    symbol = args.get("symbol")
    place = f"{args.get('path', '')}:{args['line']}" if args.get("line") else str(args.get("path") or "")
    return f"{symbol} ({place})" if symbol and place else str(symbol or place)


def _locations(ctx: ToolContext, args: dict[str, Any]) -> list[acp.ToolCallLocation]:
    try:
        path = resolve(ctx.roots, str(args["path"]))
    except (SandboxError, KeyError):
        return []
    line = args.get("line")
    return [acp.ToolCallLocation(path=str(path), line=line - 1 if isinstance(line, int) and line > 0 else None)]


def code_tools(
    features: ClientFeatures, services: Services, offers: Callable[[str], bool], judge: Judge, workspace: Path
) -> list[Tool]:
    """The code tools this turn can serve, as the session's profile allows them."""
    code = features.code if features.code is not None and features.code.serves else None
    index = services.get("index")
    symbols = index if isinstance(index, SymbolIndex) else None
    nav = _Nav(code, symbols, judge, workspace)
    tools: list[Tool] = []
    for request, name in (("definition", FIND_DEFINITION), ("references", FIND_REFERENCES)):
        if code is not None and request in code.serves:
            tools.append(nav.editor_tool(name))
        elif symbols is not None:
            tools.append(nav.index_tool(name))
    if code is not None and "hover" in code.serves:
        tools.append(nav.editor_tool(HOVER))
    if code is not None and "documentSymbol" in code.serves:
        tools.append(nav.editor_tool(DOCUMENT_SYMBOLS))
    if code is not None and "rename" in code.serves:
        tools.append(RenameSymbol(code, judge, workspace).tool())
    return [t for t in tools if offers(t.name)]


class _Nav:
    def __init__(self, code: ClientCode | None, index: SymbolIndex | None, judge: Judge, workspace: Path) -> None:
        self.code = code
        self.index = index
        self.judge = judge
        self.workspace = workspace

    def editor_tool(self, name: str) -> Tool:
        place = _schema({"path": _PATH, "line": _LINE, "symbol": _SYMBOL}, ["path", "line"])
        described = {
            FIND_DEFINITION: (
                "Where a symbol used on a line of a file is defined (the editor's language server), "
                "with its first lines.",
                lambda a: f"Definition of {_where(a)}",
            ),
            FIND_REFERENCES: (
                "Every use of a symbol in the workspace (the editor's language server), as path:line: text.",
                lambda a: f"References to {_where(a)}",
            ),
            HOVER: (
                "The type and documentation of a symbol on a line, as the editor shows it on hover.",
                lambda a: f"Hover {_where(a)}",
            ),
            DOCUMENT_SYMBOLS: (
                "The outline of a file (classes, functions, methods) with their line ranges, from "
                "the editor's language server.",
                lambda a: f"Outline of {a.get('path', '')}",
            ),
        }
        description, title = described[name]
        handlers = {
            FIND_DEFINITION: self.definition,
            FIND_REFERENCES: self.references,
            HOVER: self.hover,
            DOCUMENT_SYMBOLS: self.symbols,
        }
        schema = _schema({"path": _PATH}, ["path"]) if name == DOCUMENT_SYMBOLS else place
        return Tool(name=name, description=description, parameters=schema, handler=handlers[name],
                    kind=CODE_TOOLS[name][0], default_policy=CODE_TOOLS[name][1], title=title,
                    locations=_locations)  # fmt: skip

    def index_tool(self, name: str) -> Tool:
        what = "is defined" if name == FIND_DEFINITION else "is used (file:line: text)"
        schema = _schema(
            {
                "symbol": {"type": "string", "description": "The name, e.g. 'parse_config'."},
                "path": {"type": "string", "description": "Only in this file or folder (relative to the workspace)."},
            },
            ["symbol"],
        )
        verb = "Definition of" if name == FIND_DEFINITION else "References to"
        return Tool(
            name=name,
            description=f"Where a name {what}, from the workspace index (matched by name, not a language server).",
            parameters=schema,
            handler=self.index_definition if name == FIND_DEFINITION else self.index_references,
            kind=CODE_TOOLS[name][0],
            default_policy=CODE_TOOLS[name][1],
            title=lambda a: f"{verb} {a.get('symbol', '')}",
        )

    async def _locations(self, ctx: ToolContext, args: dict[str, Any], request: str) -> ToolResult:
        assert self.code is not None
        spot = await query_spot(ctx, self.judge, self.workspace, args)
        kind: Literal["definition", "references"] = "definition" if request == FIND_DEFINITION else "references"
        found = await self.code.locations(kind, spot.path, spot.line, spot.character, spot.line_text)
        if found is None:  # no language server for this kind of file: the index, or say so
            if self.index is not None:
                fallback = index_definitions if request == FIND_DEFINITION else index_references
                result = await fallback(ctx, self.index, self.judge, self.workspace, spot.name, None)
                result.text = f"No language server of the editor answers for {spot.rel}.\n{result.text}"
                return result
            raise ToolError(f"no language server of the editor answers {kind} for {spot.rel}; use search_text")
        return await self._render(ctx, request, spot.name, found, spot.note)

    async def _render(
        self, ctx: ToolContext, request: str, name: str, found: list[CodeLocation], note: str
    ) -> ToolResult:
        definition = request == FIND_DEFINITION
        cap = MAX_DEFINITIONS if definition else MAX_REFERENCES
        body, shown = await location_lines(ctx, self.judge, self.workspace, found, cap, context=definition)
        what = "Definition" if definition else "References"
        if not shown and not body:
            text = f"The language server found no {what.lower()} of `{name}`."
        else:
            text = f"{what} of `{name}` ({FROM_EDITOR}):\n{body}"
        return ToolResult(text=(note + "\n" if note else "") + text)

    async def definition(self, ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        return await self._locations(ctx, args, FIND_DEFINITION)

    async def references(self, ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        return await self._locations(ctx, args, FIND_REFERENCES)

    async def hover(self, ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        assert self.code is not None
        spot = await query_spot(ctx, self.judge, self.workspace, args)
        text = await self.code.hover(spot.path, spot.line, spot.character, spot.line_text)
        if text is None:
            raise ToolError(f"no language server of the editor answers hover for {spot.rel}")
        text = text.strip()
        if len(text) > MAX_HOVER_CHARS:
            text = text[:MAX_HOVER_CHARS] + "\n[… cut]"
        head = (spot.note + "\n" if spot.note else "") + f"`{spot.name}` at {spot.rel}:{spot.line + 1}"
        return ToolResult(text=f"{head} ({FROM_EDITOR}):\n{text}" if text else f"{head}: the language server "
                          "has nothing to show here.")  # fmt: skip

    async def symbols(self, ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        assert self.code is not None
        spot = await query_spot(ctx, self.judge, self.workspace, {"path": args["path"]}, locate_symbol=False)
        found = await self.code.symbols(spot.path)
        if found is None:
            raise ToolError(f"no language server of the editor gives an outline of {spot.rel}")
        return ToolResult(text=f"Outline of {spot.rel} ({FROM_EDITOR}):\n{outline(found)}")

    async def index_definition(self, ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        assert self.index is not None
        return await index_definitions(ctx, self.index, self.judge, self.workspace, args["symbol"], args.get("path"))

    async def index_references(self, ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
        assert self.index is not None
        return await index_references(ctx, self.index, self.judge, self.workspace, args["symbol"], args.get("path"))
