"""`textDocument/inlineCompletion` (LSP 3.18) and `agent/_completion/status` over the completion service.

The service is built from the current settings on first use (and imported only then: httpx is no part of serve's
start) and rebuilt when they change, so a new `completion.*` applies without a restart. Documents come from the
workspace's open documents (`documents.py`, kept by didOpen/didChange): a URI the editor did not open gets no
suggestion and is never read from disk (a FIFO, `/dev/zero`, a file outside the workspace). Only the lines around the
cursor are taken from a document, so a request costs the same in a 50 MB file as in a small one. The ring of recent
chunks hears about opens, edits and saves from here and from index_methods.py's didOpen/didSave handlers.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from .documents import DocumentWorkspace, OpenDocument

if TYPE_CHECKING:
    from ..completion.service import CompletionService
    from ..config import Settings
    from .server import AgentLanguageServer

log = logging.getLogger(__name__)


class CompletionHolder:
    """The server's completion service for its current settings."""

    def __init__(self, server: AgentLanguageServer) -> None:
        self.server = server
        self._service: CompletionService | None = None
        self._settings: Settings | None = None

    def service(self) -> CompletionService | None:
        settings = self.server.settings
        if settings is None:
            return None
        if self._service is None or settings is not self._settings:
            old = self._service
            self._settings = settings
            self._service = self._build(settings)
            if old is not None:
                self._service.ring = old.ring  # what the user was doing is still true under new settings
                _close_later(old)
        return self._service

    def _build(self, settings: Settings) -> CompletionService:
        from ..completion.context import IndexDefinitions
        from ..completion.endpoint import open_backend
        from ..completion.service import CompletionService

        async def factory() -> Any:
            return await open_backend(settings)

        roots = self.server.workspace_roots()
        defs = None
        agent = self.server.agent
        if agent is not None and agent.indexer is not None:
            defs = IndexDefinitions(agent.indexer.index.db)
        return CompletionService(settings.completion, factory, defs, repo_name=roots[0].name if roots else "workspace")

    def relative(self, uri: str) -> str:
        path = Path(unquote(urlparse(uri).path))
        for root in self.server.workspace_roots():
            try:
                return path.relative_to(root).as_posix()
            except ValueError:
                continue
        return path.name

    def opened(self, uri: str, text: str) -> None:
        from ..completion.window import MAX_SIDE_CHARS, head

        service = self.service()
        if service is not None:  # the ring takes the file's first lines: only they are cut from the text
            service.opened(self.relative(uri), head(text[:MAX_SIDE_CHARS], service.config.chunk_lines))

    def saved(self, uri: str) -> None:
        service = self.service()
        doc = self.document(uri)
        if service is not None and doc is not None:
            service.saved(self.relative(uri), doc.text_lines)

    def document(self, uri: str) -> OpenDocument | None:
        """The document if the editor has it open; nothing is ever read from disk for completion."""
        try:
            workspace = self.server.workspace
        except RuntimeError:  # not initialized
            return None
        return workspace.open_document(uri) if isinstance(workspace, DocumentWorkspace) else None


_closing: set[Any] = set()


def _close_later(service: CompletionService) -> None:
    import asyncio

    try:
        task = asyncio.get_running_loop().create_task(service.aclose())
    except RuntimeError:
        return
    _closing.add(task)
    task.add_done_callback(_closing.discard)


async def _complete(holder: CompletionHolder, params: lsp.InlineCompletionParams) -> lsp.InlineCompletionList:
    uri = params.text_document.uri
    service = holder.service()
    doc = holder.document(uri)
    if service is None or doc is None:
        return lsp.InlineCompletionList(items=[])
    position = doc.position_from_client_units(params.position)
    # Cut now, before any await: later edits change the document, not this request's text.
    document = service.document(uri, holder.relative(uri), doc.text_lines, position.line, position.character)
    suggestion = await service.complete(document)
    if not suggestion.text:
        return lsp.InlineCompletionList(items=[])
    here = lsp.Range(start=params.position, end=params.position)
    return lsp.InlineCompletionList(items=[lsp.InlineCompletionItem(insert_text=suggestion.text, range=here)])


def register(server: AgentLanguageServer) -> CompletionHolder:
    holder = CompletionHolder(server)

    @server.feature(lsp.TEXT_DOCUMENT_INLINE_COMPLETION, lsp.InlineCompletionOptions())
    async def inline_completion(params: lsp.InlineCompletionParams) -> lsp.InlineCompletionList | None:
        try:
            return await _complete(holder, params)
        except Exception as exc:  # a position past the end, a file gone: no suggestion, never an error pop-up
            log.warning("inline completion at %s failed: %s", params.text_document.uri, exc)
            return lsp.InlineCompletionList(items=[])

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
        service = holder.service()
        if service is None or not params.content_changes:
            return
        change = params.content_changes[-1]
        line = change.range.start.line if isinstance(change, lsp.TextDocumentContentChangePartial) else 0
        service.edited(holder.relative(params.text_document.uri), line)

    @server.feature("agent/_completion/status")
    async def completion_status(params: Any) -> dict[str, Any]:
        """Whether completion is on and why not: the editor's status item and `:checkhealth` show it."""
        from ..completion.backends import describe

        service = holder.service()
        if service is None:
            return {"enabled": False, "supported": None, "reason": "the server is not initialized"}
        if not service.config.enabled:
            return {"enabled": False, "supported": None, "reason": "completion.enabled = false"}
        backend = await service.backend()
        support = service.support
        return {
            "enabled": True,
            "supported": bool(support and support.ok),
            "reason": support.reason if support is not None else "the completion server did not answer",
            "backend": describe(backend) if backend is not None else None,
        }

    return holder
