"""`agent/_code`, a server->client request: the editor asks its own language servers one code question.

    -> {kind, uri, position?: {line, character}, newName?, timeoutMs}
    <- {served: false} | {served: true, result: <the language server's answer>, positionEncoding?}

`kind` is one of definition, references, hover, documentSymbol, rename; `result` is what the language server
answered to `textDocument/<kind>` (Location[] or LocationLink[], Hover, DocumentSymbol[] or SymbolInformation[],
WorkspaceEdit), nothing applied. `served: false`: no language server of the editor answers that request for the
file. Positions we send count in the encoding negotiated at `initialize`; the answer's count in `positionEncoding`
(default: the negotiated one). Sent only to clients that opted in with `initializationOptions.codeRequest` (`true`,
or the list of kinds they serve): our VS Code extension and Neovim plugin. Every answer is bounded here before the
core sees it; a broken one is an error of the call, never of the server.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlparse

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pygls.lsp.server import LanguageServer

from ..client_contract import CodeLocation, CodeRequest, CodeSymbol, FileChange, TextEdit, TextOf
from ..errors import ToolError
from .positions import ENCODINGS, from_client, split_lines, to_client

log = logging.getLogger(__name__)
METHOD = "agent/_code"
KINDS: tuple[CodeRequest, ...] = ("definition", "references", "hover", "documentSymbol", "rename")
TIMEOUT_S = 30.0  # a language server that is still starting (loading the project) takes seconds for its first answer
MAX_LOCATIONS = 1000
MAX_SYMBOLS = 2000  # an outline, flattened
MAX_DEPTH = 8
MAX_HOVER_CHARS = 8000
MAX_RENAME_FILES = 200  # more is not a rename anyone reviews
MAX_RENAME_EDITS = 10_000


def served_kinds(option: object) -> frozenset[CodeRequest]:
    """What `initializationOptions.codeRequest` announces: true (every kind) or a list of kinds."""
    if option is True:
        return frozenset(KINDS)
    if isinstance(option, list):
        return frozenset(k for k in KINDS if k in option)
    return frozenset()


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _Position(_Model):
    line: int = Field(ge=0, le=10_000_000)
    character: int = Field(ge=0, le=10_000_000)


class _Range(_Model):
    start: _Position
    end: _Position


class _Location(_Model):
    uri: str | None = None
    range: _Range | None = None
    targetUri: str | None = None
    targetRange: _Range | None = None
    targetSelectionRange: _Range | None = None


class _TextEdit(_Model):
    range: _Range
    newText: str


def _plain(value: Any, depth: int = 0) -> Any:
    """The answer as JSON values (pygls may hand over an object for an unknown method's result)."""
    if depth > 40:
        raise ToolError("the editor's answer is nested too deeply")
    if isinstance(value, dict):
        return {k: _plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v, depth + 1) for v in value]
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return _plain(vars(value), depth + 1)
    return value


def uri_path(uri: str) -> Path | None:
    parsed = urlparse(uri)
    return Path(unquote(parsed.path)) if parsed.scheme == "file" and parsed.path else None


class LspCode:
    """ClientCode over `agent/_code`."""

    def __init__(self, server: LanguageServer, serves: frozenset[CodeRequest]) -> None:
        self._server = server
        self.serves = serves

    @property
    def _encoding(self) -> str:
        negotiated = self._server.workspace.position_encoding
        return str(getattr(negotiated, "value", negotiated) or "utf-16")

    async def _ask(self, kind: CodeRequest, path: Path, extra: dict[str, Any]) -> tuple[Any, str] | None:
        """The language server's raw answer and the encoding its positions count in; None when not served."""
        params = {"kind": kind, "uri": path.as_uri(), "timeoutMs": int(TIMEOUT_S * 1000), **extra}
        try:
            raw = await asyncio.wait_for(self._server.protocol.send_request_async(METHOD, params), TIMEOUT_S + 5)
        except TimeoutError:
            raise ToolError(f"the editor did not answer {kind} within {TIMEOUT_S:g}s") from None
        except Exception as exc:  # the editor's error answer (or a malformed one): this call fails, not the turn
            raise ToolError(f"the editor could not answer {kind}: {str(exc)[:300]}") from None
        answer = _plain(raw)
        if not isinstance(answer, dict) or answer.get("served") is not True:
            return None
        encoding = answer.get("positionEncoding")
        return answer.get("result"), encoding if encoding in ENCODINGS else self._encoding

    def _position(self, line: int, character: int, line_text: str) -> dict[str, Any]:
        _, client_char = to_client([line_text], 0, character, self._encoding)
        return {"position": {"line": line, "character": client_char}}

    async def locations(
        self, request: Literal["definition", "references"], path: Path, line: int, character: int, line_text: str
    ) -> list[CodeLocation] | None:
        got = await self._ask(request, path, self._position(line, character, line_text))
        if got is None:
            return None
        result = got[0]
        items = result if isinstance(result, list) else [result] if isinstance(result, dict) else []
        out: list[CodeLocation] = []
        for item in items[:MAX_LOCATIONS]:
            try:
                loc = _Location.model_validate(item)
            except ValidationError:
                continue  # one broken entry does not cost the others
            uri, span = (
                (loc.uri, loc.range) if loc.uri else (loc.targetUri, loc.targetSelectionRange or loc.targetRange)
            )
            target = uri_path(uri or "")
            if target is not None and span is not None:
                out.append(CodeLocation(target, span.start.line, max(span.start.line, span.end.line)))
        return out

    async def hover(self, path: Path, line: int, character: int, line_text: str) -> str | None:
        got = await self._ask("hover", path, self._position(line, character, line_text))
        if got is None:
            return None
        result = got[0]
        return _hover_text(result.get("contents") if isinstance(result, dict) else None)[:MAX_HOVER_CHARS]

    async def symbols(self, path: Path) -> list[CodeSymbol] | None:
        got = await self._ask("documentSymbol", path, {})
        if got is None:
            return None
        out: list[CodeSymbol] = []
        _flatten(got[0] if isinstance(got[0], list) else [], 0, out)
        return out

    async def rename(
        self, path: Path, line: int, character: int, line_text: str, new_name: str, text_of: TextOf
    ) -> list[FileChange] | None:
        got = await self._ask("rename", path, {**self._position(line, character, line_text), "newName": new_name})
        if got is None:
            return None
        result, encoding = got
        per_file = _edits_by_file(result if isinstance(result, dict) else {})
        changes: list[FileChange] = []
        for target, edits in per_file.items():
            text = await text_of(target)
            if text is None:
                raise ToolError(f"the rename would change {target}, which is not a file of the workspace")
            lines = split_lines(text)
            core: list[TextEdit] = []
            for edit in edits:
                start = from_client(lines, edit.range.start.line, edit.range.start.character, encoding)
                end = from_client(lines, edit.range.end.line, edit.range.end.character, encoding)
                core.append(TextEdit(start[0], start[1], end[0], end[1], edit.newText))
            changes.append(FileChange(path=target, edits=core, base=text))
        return changes


def _hover_text(contents: Any) -> str:
    """Hover contents (MarkupContent, a MarkedString, or a list of them) as plain text."""
    if isinstance(contents, str):
        return contents
    if isinstance(contents, dict):
        value = contents.get("value")
        return str(value) if isinstance(value, str) else ""
    if isinstance(contents, list):
        return "\n\n".join(t for t in (_hover_text(c) for c in contents[:50]) if t)
    return ""


def _flatten(items: list[Any], depth: int, out: list[CodeSymbol]) -> None:
    """DocumentSymbol[] (nested) or SymbolInformation[] (flat, with a location) as an outline."""
    for item in items:
        if len(out) >= MAX_SYMBOLS or not isinstance(item, dict):
            return
        name, kind = item.get("name"), item.get("kind")
        where = item.get("range") or (item.get("location") or {}).get("range")
        try:
            span = _Range.model_validate(where)
        except ValidationError:
            continue
        if isinstance(name, str) and isinstance(kind, int):
            detail = item.get("detail")
            out.append(CodeSymbol(name[:200], kind, span.start.line, span.end.line, depth,
                                  detail[:200] if isinstance(detail, str) else ""))  # fmt: skip
        children = item.get("children")
        if isinstance(children, list) and depth < MAX_DEPTH:
            _flatten(children, depth + 1, out)


def _edits_by_file(edit: dict[str, Any]) -> dict[Path, list[_TextEdit]]:
    """A WorkspaceEdit's text edits per file; one that creates, renames or deletes files is refused."""
    raw: list[tuple[Any, Any]] = []
    document_changes = edit.get("documentChanges")
    if isinstance(document_changes, list):
        for change in document_changes:
            if not isinstance(change, dict) or "kind" in change:
                raise ToolError("the language server's rename also creates, renames or deletes files; not applied")
            raw.append(((change.get("textDocument") or {}).get("uri"), change.get("edits")))
    elif isinstance(edit.get("changes"), dict):
        raw = list(edit["changes"].items())
    if len(raw) > MAX_RENAME_FILES:
        raise ToolError(f"the rename would change {len(raw)} files (at most {MAX_RENAME_FILES}); not applied")
    out: dict[Path, list[_TextEdit]] = {}
    count = 0
    for uri, edits in raw:
        target = uri_path(uri) if isinstance(uri, str) else None
        if target is None or not isinstance(edits, list):
            raise ToolError(f"the language server's rename names something that is not a file: {str(uri)[:200]}")
        count += len(edits)
        if count > MAX_RENAME_EDITS:
            raise ToolError(f"the rename would make more than {MAX_RENAME_EDITS} changes; not applied")
        try:
            out.setdefault(target, []).extend(_TextEdit.model_validate(e) for e in edits)
        except ValidationError as exc:
            raise ToolError(f"the language server's rename is malformed: {exc.errors()[0]['msg']}") from None
    return out
