"""The language server: ACP-shaped `agent/*` methods plus the standard LSP features editors already speak."""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote, urlparse

import orjson
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInternalError
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage, default_converter
from pygls.protocol.language_server import LanguageServerProtocol
from pygls.workspace import Workspace

from .. import __version__, wire_trace
from ..config import Settings
from ..config_layers import LoadResult
from ..host.face_host import FaceHost
from .documents import DocumentWorkspace
from .errors import INVALID_PARAMS, RpcError, to_rpc_error
from .lsp_client import LspClient

if TYPE_CHECKING:
    from ..session.service import AgentService

log = logging.getLogger(__name__)
T = TypeVar("T")
_HEADER = b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
# Dataclasses and datetimes go through pygls's serializer, as they did with json.dumps.
_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
_writes: set[asyncio.Future[Any]] = set()


def make_converter() -> Any:
    """lsprotocol's converter, but params/results of our own methods stay plain dicts (pygls makes namedtuples)."""
    converter = default_converter()  # type: ignore[no-untyped-call]

    def keep(obj: dict[str, Any], cls: type) -> Any:
        return cls(**obj)

    for cls in (JsonRPCRequestMessage, JsonRPCNotification, JsonRPCResponseMessage):
        converter.register_structure_hook(cls, keep)
    return converter


class AgentProtocol(LanguageServerProtocol):
    _server: AgentLanguageServer

    swallow_id: int | str | None = None  # the `initialize` answered before pygls loaded (early_initialize.py)

    def _send_data(self, data: Any) -> None:
        """pygls's, with orjson (UTF-8, byte Content-Length); anything orjson refuses goes the stdlib way."""
        if not data:
            return
        if wire_trace.enabled():
            try:
                wire_trace.trace("lsp", "server->client", orjson.dumps(data, default=self._serialize_message))
            except TypeError:
                wire_trace.trace("lsp", "server->client", data)
        if self.swallow_id is not None and getattr(data, "id", None) == self.swallow_id:
            if not hasattr(data, "method"):  # the response, not a request of ours that happens to share the id
                self.swallow_id = None
                return
        if self.writer is None or not self._include_headers:
            super()._send_data(data)
            return
        try:
            body = orjson.dumps(data, default=self._serialize_message, option=_ORJSON_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError too: ints past 64 bits, lone surrogates, namedtuples
            super()._send_data(data)
            return
        try:
            res = self.writer.write(_HEADER % len(body) + body)
            if inspect.isawaitable(res):  # an async writer: keep the task alive until it is done
                task = asyncio.ensure_future(res)
                _writes.add(task)
                task.add_done_callback(_writes.discard)
        except BrokenPipeError:
            log.exception("Error sending data. BrokenPipeError")
            raise
        except Exception as error:
            log.exception("Error sending data")
            self._server._report_server_error(error, JsonRpcInternalError)

    @property
    def workspace(self) -> Workspace:
        """pygls's workspace, its documents kept as `documents.OpenDocument`s (no disk reads, no whole-text splits)."""
        workspace = super().workspace
        if not isinstance(workspace, DocumentWorkspace):
            workspace = self._workspace = DocumentWorkspace.like(workspace)
        return workspace

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        # $/cancelRequest on a pending prompt ends the turn with stopReason "cancelled", never an error.
        agent = self._server.agent
        session = agent.sessions.get(self._server.prompt_requests.get(msg_id, "")) if agent is not None else None
        if agent is not None and session is not None and session.busy:
            agent.cancel(session.id)
            return
        super()._handle_cancel_notification(msg_id)


class AgentLanguageServer(LanguageServer):
    def __init__(self, cli_overrides: dict[str, Any] | None = None) -> None:
        super().__init__(
            "agent-server",
            __version__,
            text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental,
            protocol_cls=AgentProtocol,
            converter_factory=make_converter,
        )
        self.client = LspClient(self)
        self.host = FaceHost(self.client, self._show_notice, cli_overrides)
        self.init_options: dict[str, Any] = {}
        self.prompt_requests: dict[Any, str] = {}  # JSON-RPC id of each pending agent/session/prompt -> session

    @property
    def agent(self) -> AgentService | None:
        return self.host.service

    @property
    def settings(self) -> Settings | None:
        return self.host.loaded.settings if self.host.loaded is not None else None

    @property
    def loaded(self) -> LoadResult | None:
        return self.host.loaded

    def require_agent(self) -> AgentService:
        """The agent, started on first need once `initialize` has loaded the settings: loading it, its tools and its
        store is most of a cold start, so it starts after `initialize` is answered (at `initialized`, or at the
        first request that needs it)."""
        if self.host.service is None and self.host.loaded is not None:
            return self.host.start(refresh_index=False)  # `initialized` refreshes it after the editor's settings
        if self.host.service is None:
            raise RuntimeError("the server is not initialized: send LSP `initialize` first")
        return self.host.service

    def _show_notice(self, text: str) -> None:
        self.protocol.notify(lsp.WINDOW_SHOW_MESSAGE, lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=text))

    def workspace_roots(self) -> list[Path]:
        try:
            folders = list(self.workspace.folders.values())
            root_uri = self.workspace.root_uri
        except RuntimeError:
            return []
        roots = [uri_path(f.uri) for f in folders]
        if not roots and root_uri:
            roots = [uri_path(root_uri)]
        return roots


def uri_path(uri: str) -> Path:
    return Path(unquote(urlparse(uri).path))


def rpc(server: AgentLanguageServer, method: str) -> Callable[[Callable[..., Awaitable[T]]], Callable[..., Any]]:
    """Register an `agent/*` method: errors become JSON-RPC errors from one table."""

    def decorator(fn: Callable[..., Awaitable[T]]) -> Callable[..., Any]:
        @functools.wraps(fn)
        async def handler(params: Any) -> Any:
            try:
                if params is not None and not isinstance(params, dict):
                    raise RpcError(code=INVALID_PARAMS, message=f"Invalid params for {method}: expected an object")
                return await fn(params if params is not None else {})
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not isinstance(exc, (ValueError,)) and "agent_server" not in type(exc).__module__:
                    log.exception("%s failed", method)
                raise to_rpc_error(exc, method) from exc

        server.feature(method)(handler)
        return handler

    return decorator


class ExpectedErrors(logging.Filter):
    """pygls logs every error answer with a traceback; ours (bad params, unknown session, LLM down) are expected."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, RpcError)
