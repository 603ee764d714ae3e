"""The lifecycle (initialize, configuration, workspace trust, shutdown) and the session methods of the editor
protocol: agent/initialize, agent/session/new|list|load|delete|prompt|cancel."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from .. import __version__, acp, logging_setup
from .. import config as config_mod
from ..config import Settings
from ..config_layers import LoadResult, load_layers
from ..config_layers import settle_trust as settle_workspace_trust
from .params import SearchSessionsParams
from .server import AgentLanguageServer, rpc

log = logging.getLogger(__name__)


def register(server: AgentLanguageServer) -> None:
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

    async def trust_settled() -> None:
        """Wait while the trust question is open: a turn runs with its answer (a verify_command trusted meanwhile)."""
        if trust_question.locked():
            async with trust_question:
                pass

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
        progress = server.client.progress_tokens.get(str(params.token))
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

    @rpc(server, "agent/session/search")
    async def session_search(params: dict[str, Any]) -> dict[str, Any]:
        """Sessions whose title or messages hold the query; paged like session/list (`cursor` -> `nextCursor`)."""
        req = SearchSessionsParams.model_validate(params)
        store = server.require_agent().store
        cwd = str(Path(req.cwd).resolve()) if req.cwd else None
        hits = await asyncio.to_thread(store.search_sessions, req.query, cwd, req.offset(), req.limit + 1)
        sessions = [
            {
                **acp.SessionInfo(
                    session_id=h.record.id, cwd=h.record.cwd, title=h.record.title, updated_at=h.record.updated_at_iso
                ).dump(),
                "snippet": h.snippet,
            }
            for h in hits[: req.limit]
        ]
        after = str(req.offset() + req.limit) if len(hits) > req.limit else None
        return {"sessions": sessions, "nextCursor": after}

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

    @rpc(server, "agent/session/prompt")
    async def session_prompt(params: dict[str, Any]) -> dict[str, Any]:
        req = acp.PromptRequest.model_validate(params)
        agent = server.require_agent()
        session = await agent.open(req.session_id)
        session.prompt_request_id = server.protocol.msg_id
        await trust_settled()
        stop = await agent.prompt(req.session_id, req.prompt, server.client)
        return acp.PromptResponse(stop_reason=stop).dump()

    @server.feature("agent/session/cancel")
    def session_cancel(params: Any) -> None:
        try:
            req = acp.CancelNotification.model_validate(params)
            server.require_agent().cancel(req.session_id)
        except Exception as exc:  # a notification has no answer: log it
            log.warning("agent/session/cancel ignored: %s", exc)


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
