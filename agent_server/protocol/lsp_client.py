"""The AgentClient the core talks to, implemented over LSP/JSON-RPC requests and notifications."""

from __future__ import annotations

import asyncio
import itertools
import logging
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from .. import acp
from ..client_contract import ClientFeatures, FileChange, ProgressReporter
from .positions import split_lines, to_client

log = logging.getLogger(__name__)
_tokens = itertools.count(1)


def _position(lines: list[str], line: int, character: int, encoding: str) -> lsp.Position:
    client_line, client_character = to_client(lines, line, character, encoding)
    return lsp.Position(line=client_line, character=client_character)


class LspProgress:
    """Standard work-done progress ($/progress begin/report/end), cancellable by the client."""

    def __init__(
        self, server: LanguageServer, token: str, registry: dict[str, LspProgress], enabled: bool = True
    ) -> None:
        self._server = server
        self._registry = registry  # open progresses by token, so the client's cancel finds them
        self.token = token
        self.enabled = enabled  # a client without workDoneProgress support must get no $/progress
        self._cancelled = False

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        self._cancelled = True

    async def report(self, message: str, percentage: int | None = None) -> None:
        if not self.enabled:
            return
        self._server.work_done_progress.report(
            self.token, lsp.WorkDoneProgressReport(message=message, percentage=percentage, cancellable=True)
        )

    async def end(self, message: str) -> None:
        self._registry.pop(self.token, None)
        if self.enabled:
            self._server.work_done_progress.end(self.token, lsp.WorkDoneProgressEnd(message=message))


class LspClient:
    def __init__(self, server: LanguageServer) -> None:
        self._server = server
        self.features = ClientFeatures()
        self.progress_tokens: dict[str, LspProgress] = {}
        self._noticed: set[str] = set()

    def configure(self, caps: lsp.ClientCapabilities, options: dict[str, Any]) -> None:
        ws = caps.workspace
        edit = ws.workspace_edit if ws else None
        window = caps.window
        self.features = ClientFeatures(
            apply_edit=bool(ws and ws.apply_edit),
            resource_operations=bool(
                edit and edit.resource_operations and lsp.ResourceOperationKind.Create in edit.resource_operations
            ),
            show_message_request=bool(window and window.show_message),
            work_done_progress=bool(window and window.work_done_progress),
        )
        self._save_request = bool(options.get("saveDocumentsRequest"))
        if options.get("diagnosticsRequest") is True:
            from .lsp_diagnostics import LspDiagnostics

            self.features.diagnostics = LspDiagnostics(self._server)
        if options.get("codeRequest"):  # the editor's language servers as tools (tools/code_nav.py)
            from .lsp_code import LspCode, served_kinds

            self.features.code = LspCode(self._server, served_kinds(options["codeRequest"]))

    async def session_update(self, session_id: str, update: acp.SessionUpdate) -> None:
        self.session_update_nowait(session_id, update)

    def session_update_nowait(self, session_id: str, update: acp.SessionUpdate) -> None:
        """Notifications never wait for the editor, so the relay may send from a loop callback."""
        message = {"method": "agent/session/update", "jsonrpc": "2.0", "params": update_params(session_id, update)}
        self._server.protocol._send_data(message)

    async def request_permission(
        self, session_id: str, tool_call: acp.ToolCallUpdateFields, options: list[acp.PermissionOption]
    ) -> acp.RequestPermissionResponse:
        request = acp.RequestPermissionRequest(session_id=session_id, tool_call=tool_call, options=options)
        result = await self._server.protocol.send_request_async("agent/session/request_permission", request.dump())
        return acp.RequestPermissionResponse.model_validate(result)

    async def apply_edit(self, label: str, changes: list[FileChange]) -> bool:
        document_changes: list[Any] = []
        negotiated = self._server.workspace.position_encoding
        encoding = str(getattr(negotiated, "value", negotiated) or "utf-16")
        for change in changes:
            uri = change.path.as_uri()
            if change.create:
                document_changes.append(lsp.CreateFile(uri=uri, options=lsp.CreateFileOptions(overwrite=False)))
            if change.edits:
                lines = split_lines(self._base_text(change))
                document_changes.append(
                    lsp.TextDocumentEdit(
                        text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                        edits=[
                            lsp.TextEdit(
                                range=lsp.Range(
                                    start=_position(lines, e.start_line, e.start_character, encoding),
                                    end=_position(lines, e.end_line, e.end_character, encoding),
                                ),
                                new_text=e.new_text,
                            )
                            for e in change.edits
                        ],
                    )
                )
        params = lsp.ApplyWorkspaceEditParams(edit=lsp.WorkspaceEdit(document_changes=document_changes), label=label)
        try:
            result = await self._server.protocol.send_request_async(lsp.WORKSPACE_APPLY_EDIT, params)
        except ValueError as exc:  # malformed answer (e.g. null): treat as refused, the tool reports it
            log.warning("workspace/applyEdit failed: %s", exc)
            return False
        applied = bool(getattr(result, "applied", False) if not isinstance(result, dict) else result.get("applied"))
        if not applied:
            log.warning("the editor refused the edit %r: %s", label, getattr(result, "failure_reason", None))
        return applied

    def _base_text(self, change: FileChange) -> str:
        """The text the change's positions count in: its own base, else the open buffer, else the file on disk."""
        if change.base is not None:
            return change.base
        text = self.open_document_text(change.path)
        if text is not None:
            return text
        try:
            return change.path.read_bytes().decode("utf-8", "replace")
        except OSError:
            return ""

    async def save_documents(self, paths: list[Path]) -> None:
        """Ask our own editor plugins to save; for other clients the tool writes the file itself."""
        if not self._save_request or not paths:
            return
        try:
            await asyncio.wait_for(
                self._server.protocol.send_request_async("agent/_saveDocuments", {"uris": [p.as_uri() for p in paths]}),
                timeout=10,
            )
        except Exception as exc:  # the tool still writes to disk; saving the buffer is a courtesy
            log.warning("the editor did not save %s: %s", [str(p) for p in paths], exc)

    def open_document_text(self, path: Path) -> str | None:
        try:
            docs = self._server.workspace.text_documents
        except RuntimeError:
            return None
        doc = docs.get(unquote(path.as_uri()))
        return doc.source if doc is not None else None

    async def show_message_request(self, message: str, actions: list[str]) -> str | None:
        if not self.features.show_message_request:
            return None
        params = lsp.ShowMessageRequestParams(
            type=lsp.MessageType.Info, message=message, actions=[lsp.MessageActionItem(title=a) for a in actions]
        )
        result = await self._server.protocol.send_request_async(lsp.WINDOW_SHOW_MESSAGE_REQUEST, params)
        title = getattr(result, "title", None) if result is not None and not isinstance(result, dict) else None
        if isinstance(result, dict):
            title = result.get("title")
        return title

    async def log(self, level: str, message: str) -> None:
        if level == "notice":  # the user must see it (e.g. a profile's allow rules ignored): once per server
            if message not in self._noticed:
                self._noticed.add(message)
                params = lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=message)
                self._server.protocol.notify(lsp.WINDOW_SHOW_MESSAGE, params)
            level = "warning"
        kind = {"error": lsp.MessageType.Error, "warning": lsp.MessageType.Warning}.get(level, lsp.MessageType.Info)
        self._server.protocol.notify(lsp.WINDOW_LOG_MESSAGE, lsp.LogMessageParams(type=kind, message=message))

    async def begin_progress(self, title: str, cancellable: bool = True) -> ProgressReporter:
        token = f"agent-server-{next(_tokens)}"
        progress = LspProgress(self._server, token, self.progress_tokens, enabled=self.features.work_done_progress)
        self.progress_tokens[token] = progress
        if not progress.enabled:
            return progress
        try:
            await asyncio.wait_for(self._server.work_done_progress.create_async(token), timeout=5)
        except Exception as exc:
            log.warning("the editor refused a progress token: %s", exc)
            progress.enabled = False
            return progress
        self._server.work_done_progress.begin(
            token, lsp.WorkDoneProgressBegin(title=title, cancellable=cancellable, percentage=0)
        )
        return progress


# One mapping for both faces (LSP here, plain ACP in acp_agent/), so they cannot drift.
update_params = acp.notification_params
