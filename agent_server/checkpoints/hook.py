"""The service side of checkpoints: the hook a turn calls before a change, and restores that may rewind the
conversation as well as the files."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from ..client_contract import AgentClient
from ..errors import InvalidParamsError, StateError
from ..store import Store
from ..tools.base import Tool
from ..turn.live_session import Session
from . import CheckpointService, RestoreResult


def touched_paths(args: dict[str, Any], roots: list[Path]) -> list[Path]:
    """The files a call names (outside git, these are what a checkpoint copies)."""
    from ..tools.sandbox import resolve

    path = args.get("path")
    if not isinstance(path, str):
        return []
    try:
        return [resolve(roots, path)]
    except Exception:  # the tool itself will refuse it
        return []


def checkpoint_hook(
    checkpoints: CheckpointService, session: Session, turn_message_id: int, prompt: str
) -> Callable[[Tool, dict[str, Any]], Awaitable[None]]:
    async def before_change(tool: Tool, args: dict[str, Any]) -> None:
        await checkpoints.before_change(
            session.id, session.cwd, turn_message_id, prompt, touched_paths(args, session.roots)
        )

    return before_change


async def restore(
    checkpoints: CheckpointService,
    store: Store,
    sessions: Mapping[str, Session],
    checkpoint_id: str,
    client: AgentClient | None,
    conversation: bool,
    only_turn: bool = False,
) -> RestoreResult:
    """Files back to before the checkpoint's turn (`only_turn`: only that turn's own changes reversed); with
    `conversation`, the history is cut at that turn too, so the model's next request no longer contains the
    removed messages. `sessions`: the live ones (a busy one refuses; a cut one reloads its history)."""
    if only_turn and conversation:
        raise InvalidParamsError("undoing only one turn keeps the conversation: it cannot also cut it")
    record = await checkpoints.get(checkpoint_id)
    session = sessions.get(record.session_id)
    if session is not None and session.busy:
        raise StateError(f"session {session.id} is running a turn; cancel it before restoring")
    result = await checkpoints.restore(checkpoint_id, client, only_turn)
    if conversation:
        await asyncio.to_thread(store.cut_from, record.session_id, record.turn_message_id)
        await checkpoints.forget_from(record.session_id, record.turn_message_id)
        if session is not None:
            session.history = await asyncio.to_thread(store.load_messages, session.id)
            session.store_version = await asyncio.to_thread(store.version, session.id)
            session.title = (await asyncio.to_thread(store.get_session, session.id)).title
        result.conversation_cut = True
    return result
