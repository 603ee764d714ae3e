"""The workspace index over the editor protocol: agent/_index/start|status|search, the `agent.index` command, and
the document notifications (open, close, save) that keep the index and its ranking current."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, Protocol

from lsprotocol import types as lsp

from . import params as method_params
from .errors import REQUEST_FAILED, RpcError, to_rpc_error
from .server import AgentLanguageServer, rpc, uri_path

log = logging.getLogger(__name__)


class DocumentListener(Protocol):
    """Another feature that follows the editor's documents (inline completion's recent-files context)."""

    def opened(self, uri: str, text: str) -> None: ...

    def saved(self, uri: str) -> None: ...


def register(server: AgentLanguageServer, documents: Sequence[DocumentListener] = ()) -> None:
    def indexer() -> Any:
        service = server.require_agent().indexer
        if service is None:
            raise RpcError(code=REQUEST_FAILED, message="indexing is off (index.enabled = false) or no workspace root")
        return service

    @rpc(server, "agent/_index/start")
    async def index_start(params: dict[str, Any]) -> dict[str, Any]:
        method_params.NoParams.model_validate(params)
        return {"started": indexer().start(server.client)}

    @rpc(server, "agent/_index/status")
    async def index_status(params: dict[str, Any]) -> dict[str, Any]:
        method_params.NoParams.model_validate(params)
        result: dict[str, Any] = indexer().status()
        return result

    @rpc(server, "agent/_index/search")
    async def index_search(params: dict[str, Any]) -> dict[str, Any]:
        req = method_params.IndexSearchParams.model_validate(params)
        if req.files:
            files = await indexer().index.search_files(req.query, req.limit, req.path)
            return {"files": [f.to_wire() for f in files]}
        return {"results": await indexer().search(req.query, req.limit, req.path)}

    @server.command("agent.index")
    async def index_command(*args: Any) -> dict[str, Any]:
        try:
            return {"started": indexer().start(server.client)}
        except Exception as exc:
            raise to_rpc_error(exc, "workspace/executeCommand agent.index") from exc

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE, lsp.TextDocumentSaveRegistrationOptions(include_text=True))
    async def did_save(params: lsp.DidSaveTextDocumentParams) -> None:
        for listener in documents:
            listener.saved(params.text_document.uri)
        if server.agent is None or server.agent.indexer is None:
            return
        try:
            await server.agent.indexer.saved(uri_path(params.text_document.uri), params.text)
        except Exception as exc:
            log.warning("re-indexing %s failed: %s", params.text_document.uri, exc)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
        for listener in documents:
            listener.opened(params.text_document.uri, params.text_document.text)
        if server.agent is not None and server.agent.indexer is not None:
            server.agent.indexer.opened(uri_path(params.text_document.uri))

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: lsp.DidCloseTextDocumentParams) -> None:
        if server.agent is not None and server.agent.indexer is not None:
            server.agent.indexer.closed(uri_path(params.text_document.uri))
