"""The lifecycle (initialize, configuration, workspace trust, shutdown) and the session methods of the editor
protocol: agent/initialize, agent/session/new|list|load|delete|prompt|cancel."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from .. import __version__, acp
from .. import config as config_mod
from ..config import Settings
from .params import SearchSessionsParams
from .server import AgentLanguageServer, rpc

log = logging.getLogger(__name__)


def register(server: AgentLanguageServer) -> None:
    host = server.host

    @server.feature(lsp.INITIALIZE)
    def on_initialize(params: lsp.InitializeParams) -> None:
        options = params.initialization_options if isinstance(params.initialization_options, dict) else {}
        server.init_options = options
        # Each layer and each key fails alone (reported at `initialized`); risky workspace keys wait for trust.
        host.load(server.workspace_roots(), _settings_part(options))
        server.client.configure(params.capabilities, options)
        # The agent itself starts at `initialized`, after this answer is out (see require_agent).

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
        options = config_mod.merge(_settings_part(server.init_options), _settings_part(part))
        await host.reload(server.workspace_roots(), options)

    async def settle_trust() -> None:
        """Ask whether to trust the workspace file's risky settings (once per file content), then apply them."""
        await host.settle_trust(server.client.show_message_request)

    @server.feature(lsp.INITIALIZED)
    async def on_initialized(params: lsp.InitializedParams) -> None:
        if host.loaded is None:
            return
        server.require_agent()
        host.show_notices()
        await pull_configuration()
        if host.loaded.withheld:
            _background(settle_trust())  # the question must not hold up the editor's first requests
        host.refresh_index()  # a restart resumes: only what changed meanwhile is processed

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def on_configuration_changed(params: lsp.DidChangeConfigurationParams) -> None:
        await pull_configuration()
        if server.loaded is not None and server.loaded.withheld:
            _background(settle_trust())  # e.g. the workspace file changed since: its new content is asked about

    @server.feature(lsp.SHUTDOWN)
    async def on_shutdown(params: Any) -> None:
        await host.aclose()

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
        request_id = server.protocol.msg_id  # $/cancelRequest names the request: the face maps it to the session
        server.prompt_requests[request_id] = req.session_id
        try:
            await agent.open(req.session_id)
            await host.trust_settled()  # a turn runs with the trust question's answer (a verify_command trusted)
            stop = await agent.prompt(req.session_id, req.prompt, server.client)
        finally:
            server.prompt_requests.pop(request_id, None)
        return acp.PromptResponse(stop_reason=stop).dump()

    @server.feature("agent/session/cancel")
    def session_cancel(params: Any) -> None:
        try:
            req = acp.CancelNotification.model_validate(params)
            server.require_agent().cancel(req.session_id)
        except Exception as exc:  # a notification has no answer: log it
            log.warning("agent/session/cancel ignored: %s", exc)


_background_tasks: set[asyncio.Future[Any]] = set()


def _background(coro: Awaitable[Any]) -> None:
    task = asyncio.ensure_future(coro)
    _background_tasks.add(task)
    task.add_done_callback(_background_tasks.discard)


def _settings_part(options: dict[str, Any]) -> dict[str, Any]:
    """initializationOptions may hold editor-only keys next to our settings; keep the known sections."""
    known = set(Settings.model_fields) | {"mcpServers"}
    return {k: v for k, v in options.items() if k in known}
