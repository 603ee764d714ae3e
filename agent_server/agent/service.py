"""The agent as a service: sessions in, turns run, updates out. The one entry point every face uses."""

from __future__ import annotations

import asyncio
import logging
import uuid
from pathlib import Path
from typing import Any

from .. import acp
from ..config import Settings
from ..errors import AgentServerError, SessionNotFoundError
from ..llm.base import ModelInfo, Provider
from ..messages import Message
from .client import AgentClient
from .content import prompt_text
from .context_step import ContextStep, build_system_prompt
from .loop import Turn, run_turn
from .relay import UpdateRelay
from .session import Session
from .titles import title_from_prompt

log = logging.getLogger(__name__)


class AgentService:
    """Owns the live sessions and the shared parts (provider, store, tools); runs one turn per session at a time."""

    def __init__(self, settings: Settings, roots: list[Path] | None = None) -> None:
        self.settings = settings
        self.roots = [r.resolve() for r in (roots or [])]
        self.sessions: dict[str, Session] = {}
        self.services: dict[str, Any] = {}
        self._provider: Provider | None = None
        self._model: str | None = None
        self._model_info: ModelInfo | None = None
        self._provider_lock = asyncio.Lock()
        self.store: Any = None
        self.tools: Any = None
        self.policy: Any = None
        self._setup_tools()
        self._setup_store()

    # --- wiring -----------------------------------------------------------------------------------------

    def _setup_tools(self) -> None:
        from ..tools.builtin import builtin_tools
        from ..tools.permissions import InMemoryDecisionStore, PermissionPolicy
        from ..tools.registry import ToolRegistry

        self.tools = ToolRegistry(result_limit=self.settings.tools.result_limit)
        for tool in builtin_tools(self.settings):
            self.tools.register(tool)
        self.policy = PermissionPolicy(self.settings.tools, InMemoryDecisionStore())

    def _setup_store(self) -> None:
        pass

    def reconfigure(self, settings: Settings) -> None:
        """New settings (e.g. workspace/configuration); the provider is re-resolved on the next prompt."""
        self.settings = settings
        self._provider = None
        self._model_info = None

    async def provider(self) -> tuple[Provider, str, ModelInfo | None]:
        """Resolve the endpoint lazily: session/new must work while the LLM server is down."""
        async with self._provider_lock:
            if self._provider is None or self._model is None:
                from ..llm.registry import open_provider

                self._provider, self._model, self._model_info = await open_provider(self.settings)
            return self._provider, self._model, self._model_info

    # --- sessions ---------------------------------------------------------------------------------------

    def _roots_for(self, cwd: str) -> list[Path]:
        path = Path(cwd).expanduser().resolve()
        return [path] + [r for r in self.roots if r != path]

    async def new_session(self, cwd: str, mcp_servers: list[acp.McpServer] | None = None) -> Session:
        if not Path(cwd).is_absolute():
            raise AgentServerError(f"cwd must be an absolute path, got {cwd!r}")
        session = Session(id=f"sess_{uuid.uuid4().hex[:16]}", cwd=Path(cwd).resolve(), roots=self._roots_for(cwd))
        self.sessions[session.id] = session
        return session

    def get(self, session_id: str) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            raise SessionNotFoundError(session_id)
        return session

    def list_sessions(self, cwd: str | None = None) -> list[acp.SessionInfo]:
        return [
            acp.SessionInfo(session_id=s.id, cwd=str(s.cwd), title=s.title)
            for s in self.sessions.values()
            if cwd is None or str(s.cwd) == str(Path(cwd).resolve())
        ]

    # --- turns ------------------------------------------------------------------------------------------

    async def prompt(self, session_id: str, blocks: list[acp.ContentBlock], client: AgentClient) -> acp.StopReason:
        session = self.get(session_id)
        if session.busy:
            raise AgentServerError(f"session {session_id} is already running a turn; cancel it first")
        text = prompt_text(blocks, session.roots)
        task = asyncio.ensure_future(self._turn(session, text, client))
        session.turn = task
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            # Our own handler was cancelled ($/cancelRequest): stop the turn too and report it as cancelled.
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            return "cancelled"
        finally:
            session.turn = None

    async def _turn(self, session: Session, text: str, client: AgentClient) -> acp.StopReason:
        relay = UpdateRelay(client, session.id)

        async def record(message: Message) -> None:
            session.history.append(message)

        await record(Message(role="user", content=text))
        if session.title is None:
            session.title = title_from_prompt(text)
        try:
            provider, model, info = await self.provider()
            context = ContextStep(
                build_system_prompt(str(session.cwd), self.settings.agent.profile, self.settings.agent.system_prompt),
                info,
            )
            turn = Turn(
                session=session,
                client=client,
                provider=provider,
                model=model,
                settings=self.settings,
                tools=self.tools,
                policy=self.policy,
                context=context,
                record=record,
                relay=relay,
                services=self.services,
                recover_calls=_recoverer(),
            )
            return await run_turn(turn)
        except asyncio.CancelledError:
            await relay.flush()
            return "cancelled"

    def cancel(self, session_id: str) -> bool:
        session = self.get(session_id)
        if session.turn is not None and not session.turn.done():
            session.turn.cancel()
            return True
        return False

    async def aclose(self) -> None:
        for session in self.sessions.values():
            if session.turn is not None:
                session.turn.cancel()
        if self._provider is not None:
            await self._provider.aclose()


def _recoverer() -> Any:
    try:
        from ..llm.text_tools import recover_tool_calls
    except ImportError:  # pragma: no cover - during bootstrap only
        return None
    return recover_tool_calls
