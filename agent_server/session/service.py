"""The agent as a service: sessions in, turns run, updates out. The one entry point every face uses."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from .. import acp
from ..agents import Profile, modes
from ..checkpoints import CheckpointService, RestoreResult, from_settings
from ..checkpoints import hook as checkpointing
from ..client_contract import AgentClient
from ..config import Settings
from ..context import estimate_message
from ..context_sources import auto_context, images, mcp_mentions
from ..context_sources.commands import Invocation
from ..context_sources.content import display_text, prompt_text
from ..context_sources.hot_context import with_hot_context
from ..context_sources.memory_command import remember_command
from ..context_sources.rules_prompt import RulesCache
from ..context_sources.session_commands import invoke, session_commands
from ..errors import InvalidParamsError, LLMError, LLMHTTPError, SessionNotFoundError, StateError
from ..index.service import IndexService
from ..llm.base import ModelInfo, Provider
from ..llm.model_names import find_listed, unique_models
from ..messages import Image, Message
from ..session import chat_models
from ..session.usage_now import session_now
from ..store import Store
from ..tools.base import Services
from ..tools.builtin import builtin_tools
from ..tools.permissions import PermissionPolicy
from ..tools.registry import ToolRegistry
from ..turn.live_session import Session
from ..turn.relay import UpdateRelay
from .edit_format import with_edit_format
from .endpoint import Endpoint
from .profiled_turn import run_profiled_turn
from .replay import replay_updates
from .titles import title_from_prompt

log = logging.getLogger(__name__)
T = TypeVar("T")


class AgentService:
    """Owns the live sessions and the shared parts (provider, store, tools); runs one turn per session at a time."""

    def __init__(self, settings: Settings, roots: list[Path] | None = None, client: AgentClient | None = None) -> None:
        self.settings = settings
        self.client = client  # for background reports (MCP server failures); turns get their own
        self.roots = [r.resolve() for r in (roots or [])]
        self.sessions: dict[str, Session] = {}
        self._client_mcp: dict[str, list[acp.McpServer]] = {}  # each live session's own servers, for a restart
        self.services = Services()
        self.store = Store(settings.database_path())
        self.endpoint = Endpoint(self.store, self.services, lambda: any(s.busy for s in self.sessions.values()))
        self.tools = ToolRegistry(builtin_tools(settings), result_limit=settings.tools.result_limit)
        self.policy = PermissionPolicy(settings.tools, self.store)  # "always" answers survive restarts
        self.checkpoints = from_settings(settings.checkpoints, self.store)
        self.modes = modes.ModeManager(self.store, lambda: self.settings.agent.mode)
        self.rules = RulesCache()  # rules files per workspace, read again only when one changes
        self.idle = asyncio.Event()  # set while no turn runs: background work (embeddings) waits for it
        self.idle.set()
        self.indexer: IndexService | None = None
        if settings.index.enabled and self.roots:
            try:
                self.indexer = IndexService(self.roots[0], settings.index, self.services, self._embed_index)
            except Exception as exc:  # the agent works without an index
                log.warning("workspace index unavailable: %s", exc)

    # --- wiring -----------------------------------------------------------------------------------------

    async def _embed_index(self) -> None:
        """index.embeddings with llm.embedding_model: vectors are computed in the background, yielding to chat."""
        model = self.settings.llm.embedding_model
        if not self.settings.index.embeddings or not model or self.indexer is None:
            return
        from ..index.embeddings import ProviderEmbedder

        try:
            provider, _model, _info = await self.provider()
        except Exception as exc:  # search works without vectors
            log.warning("embeddings disabled: %s", exc)
            return
        self.indexer.start_embedding(ProviderEmbedder(provider, model), self.idle)

    async def _db(self, fn: Callable[..., T], *args: Any) -> T:
        """SQLite work off the event loop."""
        return await asyncio.to_thread(fn, *args)

    async def reconfigure(self, settings: Settings) -> None:
        """New settings (workspace/configuration, a workspace trusted): later turns use them; the endpoint is resolved
        again; when the MCP servers they name changed, the live sessions' servers start again from the new list."""
        before = self.settings.mcp_servers
        self.settings = settings
        self.policy = PermissionPolicy(settings.tools, self.store)
        await self.endpoint.replace()
        if settings.mcp_servers != before:
            for session in list(self.sessions.values()):
                if session.mcp is not None:
                    await session.mcp.aclose()
                    session.mcp = None
                await self._attach_mcp(session, self._client_mcp.get(session.id, []))

    async def provider(self, client: AgentClient | None = None) -> tuple[Provider, str, ModelInfo | None]:
        """The shared LLM endpoint (session/endpoint.py), resolved on first use."""
        return await self.endpoint.get(self.settings, client)

    async def turn_provider(
        self, session: Session, client: AgentClient | None = None
    ) -> tuple[Provider, str, ModelInfo | None]:
        """The provider as a turn of `session` uses it (through the slot cache when there is one)."""
        return await self.endpoint.for_session(self.settings, session.id, client)

    # --- sessions ---------------------------------------------------------------------------------------

    def _roots_for(self, cwd: str) -> list[Path]:
        path = Path(cwd).expanduser().resolve()
        return [path] + [r for r in self.roots if r != path]

    async def new_session(self, cwd: str, mcp_servers: list[acp.McpServer] | None = None) -> Session:
        if not Path(cwd).is_absolute():
            raise InvalidParamsError(f"cwd must be an absolute path, got {cwd[:200]!r}")
        session = Session(id=f"sess_{uuid.uuid4().hex[:16]}", cwd=Path(cwd).resolve(), roots=self._roots_for(cwd))
        await self._db(self.store.create_session, str(session.cwd), self.endpoint.model, None, session.id)
        session.store_version = (0, 0)
        session.mode = self.settings.agent.mode
        self.sessions[session.id] = session
        await self._attach_mcp(session, mcp_servers or [])
        return session

    def get(self, session_id: str) -> Session:
        session = self.sessions.get(session_id)
        if session is None:
            raise SessionNotFoundError(session_id)
        return session

    async def open(self, session_id: str, cwd: str | None = None) -> Session:
        """A live session, loading it from the store if another process (or an earlier run) created it."""
        session = self.sessions.get(session_id)
        if session is not None:
            return session
        record = await self._db(self.store.get_session, session_id)  # raises SessionNotFoundError
        root = cwd or record.cwd
        loaded = Session(id=record.id, cwd=Path(root).resolve(), roots=self._roots_for(root), title=record.title)
        await self._refresh(loaded)
        await self.modes.restore(loaded)
        # Two requests may have loaded it at once: the first one in wins, so both share one live session.
        return self.sessions.setdefault(loaded.id, loaded)

    async def _persist_history(self, session: Session, history: list[Message]) -> None:
        """Store a rewritten (compacted, shortened) history; the transcript stays whole."""
        await self._db(self.store.replace_history, session.id, history)
        session.store_version = await self._db(self.store.version, session.id)

    async def _refresh(self, session: Session) -> None:
        """Re-read the history if another process (an editor, `chat --session`) changed the session meanwhile."""
        version = await self._db(self.store.version, session.id)
        if version != session.store_version:
            session.history = await self._db(self.store.load_messages, session.id)
            session.store_version = version

    async def load_session(
        self, session_id: str, cwd: str, mcp_servers: list[acp.McpServer], client: AgentClient
    ) -> None:
        """Replay the whole transcript to the client, then keep the session live for new prompts."""
        session = await self.open(session_id, cwd)
        await self._attach_mcp(session, mcp_servers)
        transcript = await self._db(self.store.transcript, session_id)
        now = await session_now(session, self.settings, self.provider)  # the meter and title: not those before a cut
        for update in [*replay_updates(transcript, self.tools), *now]:
            await client.session_update(session_id, update)

    async def resume_session(self, session_id: str, cwd: str, mcp_servers: list[acp.McpServer]) -> Session:
        """Keep a stored session live for new prompts without replaying it (the client still shows it)."""
        session = await self.open(session_id, cwd)
        await self._attach_mcp(session, mcp_servers)
        return session

    async def close_session(self, session_id: str) -> None:
        """Stop its turn and its MCP servers and forget the live session; the stored one stays for load."""
        session = self.sessions.pop(session_id, None)
        if session is None:
            await self._db(self.store.get_session, session_id)  # unknown ids still fail
            return
        if session.turn is not None:
            session.turn.cancel()
        elif self.endpoint.slots is not None:
            await self.endpoint.slots.save(session_id)
        self._client_mcp.pop(session_id, None)
        if session.mcp is not None:
            await session.mcp.aclose()

    async def list_sessions(self, cwd: str | None = None) -> list[acp.SessionInfo]:
        where = str(Path(cwd).resolve()) if cwd else None
        records = await self._db(self.store.list_sessions, where)
        return [
            acp.SessionInfo(session_id=r.id, cwd=r.cwd, title=r.title, updated_at=r.updated_at_iso) for r in records
        ]

    async def delete_session(self, session_id: str) -> None:
        session = self.sessions.pop(session_id, None)
        if session is not None and session.turn is not None:
            session.turn.cancel()
        if session is not None and session.mcp is not None:
            await session.mcp.aclose()
        self._client_mcp.pop(session_id, None)
        await self._db(self.store.get_session, session_id)
        await self._db(self.store.delete_session, session_id)
        if self.endpoint.slots is not None:
            self.endpoint.slots.forget(session_id)

    async def _attach_mcp(self, session: Session, servers: list[acp.McpServer]) -> None:
        """Start the session's MCP servers (config + the client's) in the background; never blocks."""
        from ..tools.mcp import servers_from_acp

        wanted = {**self.settings.mcp_servers, **servers_from_acp(servers)}
        if not wanted:
            return
        self._client_mcp[session.id] = servers
        from ..tools.mcp import McpManager  # the MCP SDK loads only for a session that has servers

        if session.mcp is not None:
            await session.mcp.aclose()
        client = self.client

        async def on_log(level: str, message: str) -> None:
            if client is None:
                log.warning("%s", message)
                return
            log.info("%s", message)  # a warning record would be forwarded to the editor too: shown twice
            await client.log(level, message)

        session.mcp = McpManager(
            wanted, call_timeout_s=self.settings.tools.mcp_call_timeout_s, on_log=on_log, cwd=session.cwd
        )
        await session.mcp.start()

    def tools_for(self, session: Session, profile: Profile | None = None) -> ToolRegistry:
        """Built-ins plus the MCP tools that are ready now, as the session's profile allows."""
        tools = builtin_tools(self.settings) + (session.mcp.tools() if session.mcp is not None else [])
        if profile is not None:
            tools = modes.offered(tools, profile)
        registry = ToolRegistry(result_limit=self.settings.tools.result_limit)
        for tool in tools:
            registry.register(tool, replace=True)
        return registry

    # --- modes (agent profiles) ------------------------------------------------------------------------

    async def set_mode(self, session_id: str, mode_id: str) -> acp.SessionModeState:
        session = await self.open(session_id)
        await self.modes.set(session, mode_id)
        return self.modes.state(session)

    async def mode_state(self, session_id: str) -> acp.SessionModeState:
        return self.modes.state(await self.open(session_id))

    # --- checkpoints ------------------------------------------------------------------------------------

    def require_checkpoints(self) -> CheckpointService:
        if self.checkpoints is None:
            raise StateError("checkpoints are off (checkpoints.enabled = false)")
        return self.checkpoints

    async def restore_checkpoint(
        self, checkpoint_id: str, client: AgentClient | None, conversation: bool = False, only_turn: bool = False
    ) -> RestoreResult:
        checkpoints = self.require_checkpoints()
        return await checkpointing.restore(
            checkpoints, self.store, self.sessions, checkpoint_id, client, conversation, only_turn
        )

    # --- permissions and models -------------------------------------------------------------------------

    async def list_decisions(self, cwd: str | None) -> list[dict[str, Any]]:
        workspace = str(Path(cwd).resolve()) if cwd else str(self.roots[0] if self.roots else Path.cwd())
        decisions = await self._db(self.store.list, workspace)
        return [dataclasses.asdict(d) for d in decisions]

    async def revoke_decision(self, decision_id: str) -> bool:
        revoked: bool = await self._db(self.store.revoke, decision_id)
        return revoked

    async def _explained(self, exc: LLMHTTPError, model: str | None) -> LLMError:
        """A 404 for a model the server lacks becomes doctor's "available models" message; anything else stays."""
        if exc.status != 404:
            return exc
        try:
            provider, configured, _info = await self.provider()
            names = [m.name for m in await provider.list_models() if not m.supports_embeddings]
        except LLMError:
            return exc
        return chat_models.missing_model(exc, model or configured, names) or exc

    async def list_models(self) -> dict[str, Any]:
        async with self.endpoint.listing():
            provider, model, _info = await self.provider()
            listed = await provider.list_models()
            # One entry per model, and "current" spelled as listed ("qwen3" is the listed "qwen3:latest").
            listed = unique_models(listed, lambda m: m.name)
            current = find_listed(model, [m.name for m in listed]) or model
            models = await chat_models.describe(provider, listed, current)
        return chat_models.as_wire(current, models)

    async def select_model(self, model: str) -> str:
        """Later prompts use `model`; its capabilities are read again. A running turn finishes on the old one."""
        self.settings.llm.model = model
        await self.endpoint.replace()
        return model

    # --- turns ------------------------------------------------------------------------------------------

    async def prompt(self, session_id: str, blocks: list[acp.ContentBlock], client: AgentClient) -> acp.StopReason:
        session = await self.open(session_id)
        if session.busy:
            raise StateError(f"session {session_id} is already running a turn; cancel it first")
        shown = display_text(blocks, session.roots)
        pictures = images.prompt_images(blocks, self.settings.llm.image_max_bytes)  # a bad one fails here, alone

        async def start() -> acp.StopReason:
            # A leading `/command` (a prompt file or an MCP prompt) becomes its text, and `@server:uri` mentions
            # their content; the user still sees what they typed. Inside the task: the session is busy meanwhile.
            refuse = self.refusal(session.cwd)  # a read_file deny rule keeps a file out of these too
            if (said := await remember_command(blocks, session.cwd, self.settings, self.store.path)) is not None:
                await client.session_update(session.id, acp.AgentMessageChunk(content=acp.TextContent(text=said)))
                return "end_turn"  # `/remember`: the server keeps the note itself, no model turn
            expanded, invocation = await invoke(blocks, session.cwd, session.mcp, refuse=refuse)
            expanded = await mcp_mentions.resolve(expanded, session.mcp, refuse=refuse)
            text = prompt_text(expanded, session.roots)
            text, sent = await images.attach(text, pictures, self.settings.llm, self.provider, client, session.id)
            return await self._turn(session, text, client, shown, invocation, sent)

        task = asyncio.ensure_future(start())
        session.turn = task
        self.idle.clear()
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            # Our own handler was cancelled ($/cancelRequest): stop the turn too and report it as cancelled.
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            return "cancelled"
        finally:
            session.turn = None
            self.endpoint.idle(session.id)
            if not any(s.busy for s in self.sessions.values()):
                self.idle.set()
                await self.endpoint.close_retired()

    async def list_resources(self, session_id: str) -> list[dict[str, Any]]:
        """The session's MCP resources and templates, for the editors' `@server:uri` completion."""
        session = await self.open(session_id)
        if session.mcp is None:
            return []
        from ..tools.mcp.resources import list_resources

        return await list_resources(session.mcp)

    async def list_commands(self, session_id: str) -> list[dict[str, Any]]:
        """The session's custom commands (prompt files, MCP prompts) as the editors list them."""
        session = await self.open(session_id)
        return [
            c.advertised() for c in await session_commands(session.cwd, session.mcp, refuse=self.refusal(session.cwd))
        ]

    def refusal(self, cwd: Path) -> Callable[[Path | str], str | None]:
        """Why a file may not be read for the model without a tool call (read_file's deny rules), else None: a
        custom command's file, a mention, a file the files format would show."""
        return lambda path: self.policy.read_refusal(path, cwd)

    async def _turn(
        self,
        session: Session,
        text: str,
        client: AgentClient,
        shown: str = "",
        invocation: Invocation | None = None,
        pictures: list[Image] | None = None,
    ) -> acp.StopReason:
        relay = UpdateRelay(client, session.id)

        async def record(message: Message) -> None:
            session.history.append(message)
            # Persist before going on: a crash loses at most the message in flight. On the loop (a commit takes
            # well under a millisecond, less than a hand-off to a thread); in a thread when another writer is busy.
            tokens = estimate_message(message)
            message_id = self.store.try_append_message(session.id, message, tokens)
            if message_id is None:
                message_id = await self._db(self.store.append_message, session.id, message, tokens)
            if session.store_version is not None:
                session.store_version = (message_id, session.store_version[1])

        async def persist(history: list[Message]) -> None:
            await self._persist_history(session, history)

        if session.after_turn is not None:  # the previous turn's on-read flow rewrites the history: let it finish
            await asyncio.gather(session.after_turn, return_exceptions=True)
            session.after_turn = None
        await self._refresh(session)
        profile = self.modes.profile(session)
        if invocation is not None and invocation.command.mode:  # the command's mode, for this turn only
            profile = await modes.command_profile(self.modes, session, invocation.command.mode, client) or profile
        shaped = modes.setup(profile, self.settings)
        if invocation is not None and invocation.command.model:
            shaped = dataclasses.replace(shaped, model=invocation.command.model)
        settings = shaped.settings
        for notice in profile.notices:
            await client.log("notice", notice)
        content = with_hot_context(text, session.history, settings.agent.hot_context_tokens)
        shaped, content = await with_edit_format(self, session, shaped, text, content, client)
        settings = shaped.settings
        display = shown or text if (shown or text) != content else None
        await record(Message(role="user", content=content, display=display, images=pictures or []))
        turn_message_id = session.store_version[0] if session.store_version else 0
        if session.title is None:
            session.title = title_from_prompt(text)
        try:
            if self.settings.index.auto_context:
                await auto_context.enter(
                    self.services.get("index"), text, self.settings.index.auto_context_tokens, record, relay
                )
            stop = await run_profiled_turn(self, session, shaped, text, client, relay, record, persist, turn_message_id)
        except asyncio.CancelledError:
            await relay.flush()
            return "cancelled"
        except LLMHTTPError as exc:
            raise await self._explained(exc, settings.llm.model) from exc
        finally:
            if self.checkpoints is not None:
                await asyncio.shield(self.checkpoints.after_turn(session.id, turn_message_id))
        if self.settings.index.on_read != "off":
            session.after_turn = asyncio.ensure_future(self._on_read(session, client))
        return stop

    async def _on_read(self, session: Session, client: AgentClient) -> None:
        """After a turn: shorten the files it read, per index.on_read (seed 000's GraphRAG loop)."""
        from ..index.on_read import OnRead

        # The turn began at the user's own message (the nudges after it are part of the same turn).
        since = max((i for i, m in enumerate(session.history) if m.typed_by_user), default=0)
        flow = OnRead(self.settings.index.on_read, client, self.indexer.index if self.indexer else None)
        try:
            if await flow.process(session.id, session.history, session.roots, since):
                await self._persist_history(session, list(session.history))
        except Exception as exc:  # the conversation goes on with the files as they were
            log.warning("on-read indexing failed: %s", exc)

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
        for session in self.sessions.values():
            if session.mcp is not None:
                await session.mcp.aclose()
        if self.indexer is not None:
            await self.indexer.aclose()
        await self.endpoint.aclose()
        self.store.close()
