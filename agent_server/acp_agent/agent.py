"""`agent-server acp`: the AgentService behind a standard ACP v1 agent (ndjson JSON-RPC on stdio, no prefix).

An adapter like `protocol/`: requests are validated with the shared `acp` models, handed to the one AgentService
that `host/face_host.py` starts (as it does for every face), and its updates go out through `AcpClient`. Nothing
here runs a turn or reads a setting itself.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from .. import __version__, acp
from ..host.face_host import FaceHost
from ..host.rpc_errors import error_answer
from ..host.stdin import open_stdin
from ..session.service import AgentService
from ..stdio import claim_stdout
from ..turn.live_session import Session
from . import client_wrapping, commands, options, sessions, vision
from .client import AcpClient
from .rpc import INVALID_PARAMS, Connection, LineReader, RpcFailure

log = logging.getLogger(__name__)
LINE_LIMIT = 64 << 20  # a prompt may embed whole files
SESSION_CAPABILITIES = ("list", "delete", "resume", "close", "additionalDirectories", "fork")


def _map_error(exc: BaseException, method: str) -> RpcFailure:
    if isinstance(exc, RpcFailure):
        return exc
    if isinstance(exc, ValueError) and type(exc).__module__ == "builtins":
        return RpcFailure(INVALID_PARAMS, f"Invalid params for {method}: {exc}")
    answer = error_answer(exc, method)  # the one exception -> JSON-RPC table, shared with the LSP face
    return RpcFailure(answer.code, answer.message, answer.data)


class AcpAgent:
    def __init__(self, write: Any, cli_overrides: dict[str, Any] | None = None) -> None:
        self.conn = Connection(
            write,
            requests={
                "initialize": self.initialize,
                "authenticate": self.authenticate,
                "session/new": self.session_new,
                "session/load": self.session_load,
                "session/list": self.session_list,
                "session/delete": self.session_delete,
                "session/resume": self.session_resume,
                "session/close": self.session_close,
                "session/prompt": self.session_prompt,
                "session/set_mode": self.session_set_mode,
                "session/set_config_option": self.session_set_config_option,
                "session/fork": self.session_fork,
                "logout": self.logout,
            },
            notifications={"session/cancel": self.session_cancel},
            errors=_map_error,
        )
        self.client = AcpClient(self.conn)
        # ACP has no notice of its own: the settings' problems go to the log (clients show stderr, if anything).
        self.host = FaceHost(self.client, lambda text: log.warning("%s", text), cli_overrides)
        self.workspace = Path.cwd()
        self._commands: dict[str, asyncio.Task[None]] = {}  # running slash commands by session, for cancel
        self._directories: dict[str, list[Path]] = {}  # live sessions' additionalDirectories
        self._trust: asyncio.Task[None] | None = None  # the workspace-trust question, asked once
        self._advertised: dict[str, list[dict[str, Any]]] = {}  # the last available_commands_update per session
        self._background: set[asyncio.Task[None]] = set()

    async def serve(self, reader: LineReader) -> None:
        try:
            await self.conn.serve(reader)
        finally:
            await self.host.aclose()

    @property
    def service(self) -> AgentService | None:
        return self.host.service

    # --- the service, made on first use: its workspace is the first session's folder --------------------

    def _service(self, cwd: str | None) -> AgentService:
        if cwd is not None and not Path(cwd).is_absolute():
            raise ValueError(f"cwd must be an absolute path, got {cwd!r}")
        if self.host.service is None:
            self.workspace = Path(cwd).resolve() if cwd else Path.cwd()
            self.host.load([self.workspace])
        return self.host.start()

    async def _describe(self, session: Session) -> dict[str, Any]:
        """What session/new and session/load answer besides the id: modes and config options."""
        service = self._service(None)
        configs = await options.config_options(service, session, self.client.boolean_options)
        return {
            "modes": options.mode_state(service, session).dump(),
            "configOptions": [c.dump() for c in configs],
        }

    def _after_answer(self, session: Session) -> None:
        """The slash commands, once the client knows the session (right after the answer goes out), again after a
        turn when the list changed (a prompt file added, an MCP server's prompts now ready); then the workspace-trust
        question, if there is one and the client can be asked."""
        self.client.active_session = session.id
        service = self._service(None)

        async def send() -> None:
            listed = commands.available(service) + await commands.custom(service, session)
            dumped = [c.dump() for c in listed]
            if self._advertised.get(session.id) == dumped:
                return
            self._advertised[session.id] = dumped
            await self.client.session_update(session.id, acp.AvailableCommandsUpdate(available_commands=listed))

        task = asyncio.ensure_future(send())
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        if self._trust is None and self.host.loaded is not None and self.host.loaded.withheld:
            self._trust = asyncio.ensure_future(self._settle_trust())

    async def _settle_trust(self) -> None:
        """The workspace-trust question through elicitation, when the client offers it (else only the notice)."""
        await asyncio.sleep(0)  # after the session's answer and its commands
        await self.host.settle_trust(self.client.show_message_request if self.client.can_elicit else None)

    # --- agent methods ----------------------------------------------------------------------------------

    async def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        # Any protocolVersion is answered with the one we speak (1); the client decides whether it can go on.
        request = acp.InitializeRequest.model_validate(params)
        self.client.configure(request.client_capabilities)
        if self.host.service is None:  # before any session: the settings of the folder the client started us in
            self.host.load([self.workspace])
            self.host.show_notices()
        settings = self.host.settings
        capabilities = acp.AgentCapabilities(
            prompt_capabilities=acp.PromptCapabilities(image=await vision.model_sees(settings)),
            session_capabilities={key: {} for key in SESSION_CAPABILITIES},
            auth={"logout": {}},
        )
        return acp.InitializeResponse(
            agent_capabilities=capabilities,
            agent_info=acp.Implementation(name="agent-server", title="agent-server", version=__version__),
        ).dump()

    async def authenticate(self, params: dict[str, Any]) -> dict[str, Any]:
        return {}  # no authMethods are offered: nothing to authenticate

    async def logout(self, params: dict[str, Any]) -> dict[str, Any]:
        """No account to leave: the agent lets go of what it holds for the user instead. Running turns stop, live
        sessions close (their MCP servers end), the LLM connection is dropped; stored sessions stay for load."""
        if self.service is None:
            return {}
        for task in self._commands.values():
            task.cancel()
        for session_id in list(self.service.sessions):
            await self.service.close_session(session_id)
            self.client.shaper.forget(session_id)
        self._directories.clear()
        self.client.active_session = None
        await self.service.reconfigure(self.service.settings)
        return {}

    async def session_new(self, params: dict[str, Any]) -> dict[str, Any]:
        request = acp.NewSessionRequest.model_validate(params)
        service = self._service(request.cwd)
        extra = sessions.directories(request.additional_directories)
        session = await service.new_session(request.cwd, request.mcp_servers)
        sessions.widen(session, extra, self._directories)
        answer = {"sessionId": session.id, **await self._describe(session)}
        self._after_answer(session)
        return answer

    async def session_load(self, params: dict[str, Any]) -> dict[str, Any]:
        request = acp.LoadSessionRequest.model_validate(params)
        service = self._service(request.cwd)
        extra = sessions.directories(request.additional_directories)
        self.client.shaper.new_prompt(request.session_id)
        self.client.shaper.replaying(request.session_id, True)
        try:
            await service.load_session(request.session_id, request.cwd, request.mcp_servers, self.client)
        finally:
            self.client.shaper.replaying(request.session_id, False)
        session = service.get(request.session_id)
        sessions.widen(session, extra, self._directories)
        answer = await self._describe(session)
        self._after_answer(session)
        return answer

    async def session_resume(self, params: dict[str, Any]) -> dict[str, Any]:
        request = acp.LoadSessionRequest.model_validate(params)  # the same fields, without the replay
        service = self._service(request.cwd)
        extra = sessions.directories(request.additional_directories)
        session = await service.resume_session(request.session_id, request.cwd, request.mcp_servers)
        sessions.widen(session, extra, self._directories)
        answer = await self._describe(session)
        self._after_answer(session)
        return answer

    async def session_close(self, params: dict[str, Any]) -> dict[str, Any]:
        request = acp.CancelNotification.model_validate(params)  # {sessionId}
        running = self._commands.get(request.session_id)
        if running is not None:
            running.cancel()
        await self._service(None).close_session(request.session_id)
        self._directories.pop(request.session_id, None)
        self.client.shaper.forget(request.session_id)
        return {}

    async def session_list(self, params: dict[str, Any]) -> dict[str, Any]:
        request = acp.ListSessionsRequest.model_validate(params)
        service = self._service(request.cwd)
        return (await sessions.list_page(service, request, self._directories)).dump()

    async def session_fork(self, params: dict[str, Any]) -> dict[str, Any]:
        """Unstable in ACP v1 (agent-shell uses it): a new session with a copy of the conversation so far."""
        source_id, cwd, mcp_servers, directories = sessions.fork_request(params)
        service = self._service(cwd)
        extra = sessions.directories(directories)
        session = await sessions.fork(service, source_id, cwd, mcp_servers)
        sessions.widen(session, extra, self._directories)
        answer = {"sessionId": session.id, **await self._describe(session)}
        self._after_answer(session)
        return answer

    async def session_delete(self, params: dict[str, Any]) -> dict[str, Any]:
        request = acp.DeleteSessionRequest.model_validate(params)
        await self._service(None).delete_session(request.session_id)
        return {}

    async def session_prompt(self, params: dict[str, Any]) -> dict[str, Any]:
        request = acp.PromptRequest.model_validate(params)
        request.prompt = client_wrapping.unwrap(request.prompt)
        service = self._service(None)
        command = commands.parse(request.prompt)
        session = await service.open(request.session_id)
        if self._trust is not None and not self._trust.done():
            # The turn runs with the settings the answer gives: wait for the workspace-trust question first.
            await asyncio.shield(self._trust)
        self.client.active_session = session.id
        if not session.busy:
            self.client.shaper.new_prompt(session.id)
        if command is None:
            title = session.title
            stop = await service.prompt(request.session_id, request.prompt, self.client)
            if session.title != title:  # the first prompt names the session: clients show it in their lists
                self.client.session_update_nowait(session.id, acp.SessionInfoUpdate(title=session.title))
            self._after_answer(session)
            return acp.PromptResponse(stop_reason=stop).dump()
        if session.busy or request.session_id in self._commands:
            raise ValueError(f"session {request.session_id} is busy; cancel it first")
        run, arg = command
        task = asyncio.ensure_future(run.run(commands.CommandContext(service, session, self.client), arg))
        self._commands[session.id] = task
        try:
            await asyncio.shield(task)
        except ValueError as exc:  # a wrong argument (/model nosuch) is an answer, not a protocol error
            await commands.CommandContext(service, session, self.client).say(str(exc))
        except asyncio.CancelledError:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            return acp.PromptResponse(stop_reason="cancelled").dump()
        finally:
            self._commands.pop(session.id, None)
        return acp.PromptResponse(stop_reason="cancelled" if task.cancelled() else "end_turn").dump()

    async def session_cancel(self, params: dict[str, Any]) -> None:
        request = acp.CancelNotification.model_validate(params)
        running = self._commands.get(request.session_id)
        if running is not None:
            running.cancel()
            return
        self._service(None).cancel(request.session_id)

    async def session_set_mode(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id, mode_id = params.get("sessionId"), params.get("modeId")
        if not isinstance(session_id, str) or not isinstance(mode_id, str):
            raise ValueError("sessionId and modeId must be strings")
        service = self._service(None)
        session = await service.open(session_id)
        await options.set_mode(service, session, mode_id)
        self.client.session_update_nowait(session_id, acp.CurrentModeUpdate(current_mode_id=session.mode))
        configs = await options.config_options(service, session, self.client.boolean_options)
        self.client.session_update_nowait(session_id, acp.ConfigOptionUpdate(config_options=configs))
        return {}

    async def session_set_config_option(self, params: dict[str, Any]) -> dict[str, Any]:
        session_id, config_id, value = params.get("sessionId"), params.get("configId"), params.get("value")
        if not isinstance(session_id, str) or not isinstance(config_id, str):
            raise ValueError("sessionId and configId must be strings")
        service = self._service(None)
        session = await service.open(session_id)
        await options.set_option(service, session, config_id, value)
        if config_id == "mode":
            self.client.session_update_nowait(session_id, acp.CurrentModeUpdate(current_mode_id=session.mode))
        configs = await options.config_options(service, session, self.client.boolean_options)
        return {"configOptions": [c.dump() for c in configs]}


# --- running on stdio -----------------------------------------------------------------------------------


def serve_stdio(cli_overrides: dict[str, Any] | None = None) -> None:
    """Serve ACP on stdin/stdout. File descriptor 1 is kept for JSON-RPC alone: anything else that writes to
    stdout (a library's print, a child process that inherits it) lands on stderr instead."""
    wire = claim_stdout()

    def write(data: bytes) -> None:
        wire.write(data)
        wire.flush()

    async def main() -> None:
        agent = AcpAgent(write, cli_overrides)
        await agent.serve(await open_stdin(LINE_LIMIT))

    try:
        asyncio.run(main())
    except (BrokenPipeError, KeyboardInterrupt):
        pass
