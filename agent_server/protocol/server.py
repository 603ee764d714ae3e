"""The language server: ACP-shaped `agent/*` methods plus the standard LSP features editors already speak."""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import threading
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

from .. import __version__, acp, logging_setup
from .. import config as config_mod
from ..config import Settings
from ..config_layers import LoadResult, load_layers
from ..config_layers import settle_trust as settle_workspace_trust
from ..errors import StoreError
from . import agent_methods, checkpoint_methods, completion_methods
from . import params as method_params
from .errors import INVALID_PARAMS, REQUEST_FAILED, RpcError, to_rpc_error
from .lsp_client import LspClient, LspProgress
from .transport import read_loop, serve_stdin

if TYPE_CHECKING:
    from ..agent.service import AgentService

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

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        # $/cancelRequest on a pending prompt ends the turn with stopReason "cancelled", never an error.
        agent = self._server.agent
        if agent is not None:
            for session in agent.sessions.values():
                if session.busy and session.prompt_request_id == msg_id:
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
        self.cli_overrides = cli_overrides or {}
        self.client = LspClient(self)
        self.agent: AgentService | None = None
        self.settings: Settings | None = None
        self.init_options: dict[str, Any] = {}
        self.progress_tokens: dict[str, LspProgress] = {}
        self.client_options: dict[str, Any] = {}
        self.loaded: LoadResult | None = None
        self.shown_notices: set[str] = set()

    def require_agent(self) -> AgentService:
        if self.agent is None and self.loaded is not None:
            self.start_agent()
        if self.agent is None:
            raise RuntimeError("the server is not initialized: send LSP `initialize` first")
        return self.agent

    def start_agent(self) -> None:
        """Create the agent once `initialize` is answered (at `initialized`, or the first request that needs it):
        loading the agent, its tools and its store is most of a cold start, and the editor waits for nothing else."""
        from ..agent.service import AgentService

        loaded = self.loaded
        assert loaded is not None and self.settings is not None
        roots = self.workspace_roots()
        try:
            self.agent = AgentService(self.settings, roots, self.client)
        except StoreError as exc:  # an unusable store.path must not fail the start: the default store, reported
            loaded.use_default_store(exc)
            self.settings = loaded.settings
            self.agent = AgentService(self.settings, roots, self.client)

    def workspace_roots(self) -> list[Path]:
        try:
            folders = list(self.workspace.folders.values())
            root_uri = self.workspace.root_uri
        except RuntimeError:
            return []
        roots = [_uri_path(f.uri) for f in folders]
        if not roots and root_uri:
            roots = [_uri_path(root_uri)]
        return roots


def _uri_path(uri: str) -> Path:
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


class _ExpectedErrors(logging.Filter):
    """pygls logs every error answer with a traceback; ours (bad params, unknown session, LLM down) are expected."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, RpcError)


def create_server(cli_overrides: dict[str, Any] | None = None) -> AgentLanguageServer:
    server = AgentLanguageServer(cli_overrides)
    logging.getLogger("pygls.protocol.json_rpc").addFilter(_ExpectedErrors())

    @server.feature(lsp.INITIALIZE)
    def on_initialize(params: lsp.InitializeParams) -> None:
        options = params.initialization_options if isinstance(params.initialization_options, dict) else {}
        server.init_options = options
        # Each layer and each key fails alone (reported at `initialized`); risky workspace keys wait for trust.
        server.client_options = _settings_part(options)
        server.loaded = loaded = _load_config(server)
        server.settings = loaded.settings
        server.client.configure(params.capabilities, options)
        logging_setup.remember_secrets(logging_setup.secrets_in(server.settings))
        # The agent itself starts at `initialized`, after this answer is out (see start_agent).

    async def pull_configuration() -> None:
        """Settings from `workspace/configuration` (section "agentServer") sit above initializationOptions."""
        caps = server.client_capabilities.workspace
        if server.agent is None or not (caps and caps.configuration):
            return
        item = lsp.ConfigurationItem(section="agentServer")
        try:
            result = await server.workspace_configuration_async(lsp.ConfigurationParams(items=[item]))
        except Exception as exc:
            log.warning("workspace/configuration failed: %s", exc)
            return
        part = result[0] if isinstance(result, (list, tuple)) and result else None
        if not isinstance(part, dict) or not part:
            return
        server.client_options = config_mod.merge(_settings_part(server.init_options), _settings_part(part))
        await apply_config(_load_config(server))

    async def apply_config(loaded: LoadResult) -> None:
        _show_notices(server, [str(issue) for issue in loaded.issues])
        server.loaded = loaded
        server.settings = loaded.settings
        logging_setup.remember_secrets(logging_setup.secrets_in(loaded.settings))
        if server.agent is not None:
            await server.agent.reconfigure(loaded.settings)

    trust_question = asyncio.Lock()

    async def settle_trust() -> None:
        """Ask whether to trust the workspace file's risky settings (once per file content), then apply them."""
        if trust_question.locked():
            return  # one question at a time; a reload while it is open is covered by its answer
        async with trust_question:
            await _settle_trust()

    async def _settle_trust() -> None:
        loaded = server.loaded
        if loaded is None:
            return

        async def notify(text: str) -> None:
            _show_notices(server, [text])

        try:
            fresh = await settle_workspace_trust(
                loaded, lambda: _load_config(server), server.client.show_message_request, notify
            )
        except Exception as exc:  # the question failed: the risky settings stay ignored
            log.warning("workspace trust: %s", exc)
            return
        if fresh is not None:
            await apply_config(fresh)

    @server.feature(lsp.INITIALIZED)
    async def on_initialized(params: lsp.InitializedParams) -> None:
        if server.agent is None and server.loaded is not None:
            server.start_agent()
        if server.loaded is not None:
            _show_notices(server, [str(issue) for issue in server.loaded.issues])
        await pull_configuration()
        if server.loaded is not None and server.loaded.withheld:
            _background(settle_trust())  # the question must not hold up the editor's first requests
        indexer = server.agent.indexer if server.agent is not None else None
        if indexer is not None and server.settings is not None and server.settings.index.refresh_on_start:
            if indexer.built_before:  # a restart resumes: only what changed meanwhile is processed
                indexer.start(server.client)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def on_configuration_changed(params: lsp.DidChangeConfigurationParams) -> None:
        await pull_configuration()
        if server.loaded is not None and server.loaded.withheld:
            _background(settle_trust())  # e.g. the workspace file changed since: its new content is asked about

    @server.feature(lsp.SHUTDOWN)
    async def on_shutdown(params: Any) -> None:
        if server.agent is not None:
            await server.agent.aclose()

    @server.feature(lsp.WINDOW_WORK_DONE_PROGRESS_CANCEL)
    def on_progress_cancel(params: lsp.WorkDoneProgressCancelParams) -> None:
        progress = server.progress_tokens.get(str(params.token))
        if progress is not None:
            progress.cancel()

    @rpc(server, "agent/initialize")
    async def initialize(params: dict[str, Any]) -> dict[str, Any]:
        acp.InitializeRequest.model_validate(params)
        return acp.InitializeResponse(agent_info=acp.Implementation(name="agent-server", version=__version__)).dump()

    @rpc(server, "agent/session/new")
    async def session_new(params: dict[str, Any]) -> dict[str, Any]:
        req = acp.NewSessionRequest.model_validate(params)
        agent = server.require_agent()
        session = await agent.new_session(req.cwd, req.mcp_servers)
        return acp.NewSessionResponse(session_id=session.id, modes=agent.modes.state(session)).dump()

    @rpc(server, "agent/session/list")
    async def session_list(params: dict[str, Any]) -> dict[str, Any]:
        req = acp.ListSessionsRequest.model_validate(params)
        return acp.ListSessionsResponse(sessions=await server.require_agent().list_sessions(req.cwd)).dump()

    @rpc(server, "agent/session/load")
    async def session_load(params: dict[str, Any]) -> dict[str, Any]:
        req = acp.LoadSessionRequest.model_validate(params)
        agent = server.require_agent()
        await agent.load_session(req.session_id, req.cwd, req.mcp_servers, server.client)
        # ACP's LoadSessionResponse carries the session's modes, so an editor's header shows the resumed one.
        return {**acp.LoadSessionResponse().dump(), "modes": (await agent.mode_state(req.session_id)).dump()}

    @rpc(server, "agent/session/delete")
    async def session_delete(params: dict[str, Any]) -> dict[str, Any]:
        req = acp.DeleteSessionRequest.model_validate(params)
        await server.require_agent().delete_session(req.session_id)
        return {}

    checkpoint_methods.register(server)
    agent_methods.register(server)
    completion = completion_methods.register(server)

    @rpc(server, "agent/_permissions/list")
    async def permissions_list(params: dict[str, Any]) -> dict[str, Any]:
        req = method_params.PermissionsListParams.model_validate(params)
        decisions = await server.require_agent().list_decisions(req.cwd)
        return {"decisions": decisions}

    @rpc(server, "agent/_permissions/revoke")
    async def permissions_revoke(params: dict[str, Any]) -> dict[str, Any]:
        req = method_params.PermissionsRevokeParams.model_validate(params)
        return {"revoked": await server.require_agent().revoke_decision(req.id)}

    @rpc(server, "agent/_models/list")
    async def models_list(params: dict[str, Any]) -> dict[str, Any]:
        method_params.NoParams.model_validate(params)
        return await server.require_agent().list_models()

    @rpc(server, "agent/_models/select")
    async def models_select(params: dict[str, Any]) -> dict[str, Any]:
        req = method_params.ModelSelectParams.model_validate(params)
        await method_params.refuse_unknown_model(server.require_agent(), req.model)
        return {"current": await server.require_agent().select_model(req.model)}

    @rpc(server, "agent/session/prompt")
    async def session_prompt(params: dict[str, Any]) -> dict[str, Any]:
        req = acp.PromptRequest.model_validate(params)
        agent = server.require_agent()
        session = await agent.open(req.session_id)
        session.prompt_request_id = server.protocol.msg_id
        stop = await agent.prompt(req.session_id, req.prompt, server.client)
        return acp.PromptResponse(stop_reason=stop).dump()

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
        completion.saved(params.text_document.uri)
        if server.agent is None or server.agent.indexer is None:
            return
        try:
            await server.agent.indexer.saved(_uri_path(params.text_document.uri), params.text)
        except Exception as exc:
            log.warning("re-indexing %s failed: %s", params.text_document.uri, exc)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
        completion.opened(params.text_document.uri, params.text_document.text)
        if server.agent is not None and server.agent.indexer is not None:
            server.agent.indexer.opened(_uri_path(params.text_document.uri))

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: lsp.DidCloseTextDocumentParams) -> None:
        if server.agent is not None and server.agent.indexer is not None:
            server.agent.indexer.closed(_uri_path(params.text_document.uri))

    @server.feature("agent/session/cancel")
    def session_cancel(params: Any) -> None:
        try:
            req = acp.CancelNotification.model_validate(params)
            server.require_agent().cancel(req.session_id)
        except Exception as exc:  # a notification has no answer: log it
            log.warning("agent/session/cancel ignored: %s", exc)

    return server


def _load_config(server: AgentLanguageServer) -> LoadResult:
    roots = server.workspace_roots()
    return load_layers(
        workspace=roots[0] if roots else None, client_options=server.client_options, cli_overrides=server.cli_overrides
    )


def _show_notices(server: AgentLanguageServer, notices: list[str]) -> None:
    """window/showMessage for each configuration notice, once per server (a reload repeats unchanged problems)."""
    for text in notices:
        if text in server.shown_notices:
            continue
        server.shown_notices.add(text)
        server.protocol.notify(
            lsp.WINDOW_SHOW_MESSAGE, lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=text)
        )


_background_tasks: set[asyncio.Future[Any]] = set()


def _background(coro: Awaitable[Any]) -> None:
    task = asyncio.ensure_future(coro)
    _background_tasks.add(task)
    task.add_done_callback(_background_tasks.discard)


def _settings_part(options: dict[str, Any]) -> dict[str, Any]:
    """initializationOptions may hold editor-only keys next to our settings; keep the known sections."""
    known = set(Settings.model_fields) | {"mcpServers"}
    return {k: v for k, v in options.items() if k in known}


# --- running -------------------------------------------------------------------------------------------


class _LogForwarder(logging.Handler):
    """WARNING and above also go to the editor as window/logMessage."""

    def __init__(self, server: AgentLanguageServer) -> None:
        super().__init__(logging.WARNING)
        self._server = server
        self._busy = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(self._busy, "on", False) or self._server.protocol.writer is None or self._server.agent is None:
            return
        self._busy.on = True
        try:
            kind = lsp.MessageType.Error if record.levelno >= logging.ERROR else lsp.MessageType.Warning
            self._server.protocol.notify(
                lsp.WINDOW_LOG_MESSAGE, lsp.LogMessageParams(type=kind, message=self.format(record))
            )
        except Exception:
            pass
        finally:
            self._busy.on = False


def serve_stdio(server: AgentLanguageServer) -> None:
    from pygls.io_ import StdoutWriter

    from ..stdio import claim_stdout
    from .early_initialize import pending

    logging.getLogger().addHandler(_LogForwarder(server))
    stop = threading.Event()
    server._stop_event = stop
    server.protocol.set_writer(StdoutWriter(claim_stdout()))
    protocol: AgentProtocol = server.protocol  # type: ignore[assignment]
    protocol.swallow_id = pending.answered_id
    try:
        asyncio.run(serve_stdin(server.protocol, stop, pending.prefix))
    except (BrokenPipeError, KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]


def serve_tcp(server: AgentLanguageServer, host: str, port: int) -> None:
    """One client at a time over TCP, for debugging with a client you start by hand."""
    logging.getLogger().addHandler(_LogForwarder(server))
    stop = threading.Event()

    class _Writer:
        def __init__(self, writer: asyncio.StreamWriter) -> None:
            self._w = writer

        def write(self, data: bytes) -> None:
            self._w.write(data)

        def close(self) -> None:
            self._w.close()

    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.protocol.set_writer(_Writer(writer))
        await read_loop(reader, server.protocol, stop)
        writer.close()

    async def main() -> None:
        srv = await asyncio.start_server(on_client, host, port)
        log.warning("agent-server listening on %s:%s", host, port)
        async with srv:
            await srv.serve_forever()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
