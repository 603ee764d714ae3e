"""Session lifecycle details ACP adds to the service's: extra workspace roots, listing in pages, forking.

`additionalDirectories` widen a live session's roots (tools reach them like the cwd; nothing outside them). They
are per request, as ACP says: a load or resume without them leaves only the cwd's roots. `session/list` shows
sessions a user can go back to (never an empty one, such as the chat just opened), newest first, in pages behind
an opaque cursor. `session/fork` (unstable in ACP v1) copies a stored conversation into a new session.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
from pathlib import Path
from typing import Any

import orjson

from .. import acp
from ..session.service import AgentService
from ..store.records import SessionRecord
from ..turn.live_session import Session

PAGE_SIZE = 20
_LIST_LIMIT = 100_000  # every session of a folder: pages are cut here, not by the store


def directories(paths: list[str]) -> list[Path]:
    """The additional roots a request names: absolute, existing folders (anything else is the caller's mistake)."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if not path.is_absolute():
            raise ValueError(f"additionalDirectories must be absolute paths, got {raw[:200]!r}")
        if not path.is_dir():
            raise ValueError(f"additionalDirectories: {raw[:200]!r} is not a folder")
        resolved = path.resolve()
        if resolved not in out:
            out.append(resolved)
    return out


def widen(session: Session, extra: list[Path], known: dict[str, list[Path]]) -> None:
    """Give the session exactly these additional roots (besides the cwd and the agent's own)."""
    previous = known.get(session.id, [])
    roots = [r for r in session.roots if r not in previous or r == session.cwd]
    roots += [d for d in extra if d not in roots]
    session.roots = roots
    if extra:
        known[session.id] = extra
    else:
        known.pop(session.id, None)


def _cursor(record: SessionRecord) -> str:
    return base64.urlsafe_b64encode(orjson.dumps([record.updated_at, record.id])).decode()


def _after(cursor: str) -> tuple[float, str]:
    try:
        updated, session_id = orjson.loads(base64.urlsafe_b64decode(cursor.encode()))
        return float(updated), str(session_id)
    except (ValueError, TypeError, binascii.Error, orjson.JSONDecodeError) as exc:
        raise ValueError(f"invalid cursor {cursor[:80]!r}: pass the nextCursor of an earlier answer") from exc


async def list_page(
    service: AgentService, request: acp.ListSessionsRequest, known: dict[str, list[Path]], page_size: int = PAGE_SIZE
) -> acp.ListSessionsResponse:
    where = str(Path(request.cwd).resolve()) if request.cwd else None
    records = await asyncio.to_thread(service.store.list_sessions, where, _LIST_LIMIT)
    shown = [r for r in records if r.message_count > 0]
    if request.cursor:
        # Keyset paging, newest first: a session that moved to the top meanwhile is not shown twice.
        updated, last_id = _after(request.cursor)
        ids = [r.id for r in shown]
        if last_id in ids:
            shown = shown[ids.index(last_id) + 1 :]
        else:
            shown = [r for r in shown if r.updated_at < updated]
    page, rest = shown[:page_size], shown[page_size:]
    sessions = [
        acp.SessionInfo(
            session_id=r.id,
            cwd=r.cwd,
            title=r.title,
            updated_at=r.updated_at_iso,
            additional_directories=[str(d) for d in known.get(r.id, [])] or None,
        )
        for r in page
    ]
    return acp.ListSessionsResponse(sessions=sessions, next_cursor=_cursor(page[-1]) if rest and page else None)


async def fork(service: AgentService, source_id: str, cwd: str, mcp_servers: list[acp.McpServer]) -> Session:
    """A new session holding a copy of `source_id`'s conversation (what the user saw and what the model sees)."""
    source = await service.open(source_id)
    session = await service.new_session(cwd, mcp_servers)
    store = service.store

    def copy() -> None:
        for message in store.transcript(source_id):
            store.append_message(session.id, message)
        store.replace_history(session.id, store.load_messages(source_id))
        title = store.get_session(source_id).title
        if title:
            store.set_title(session.id, title)

    await asyncio.to_thread(copy)
    session.title = source.title
    await service.set_mode(session.id, source.mode)
    return session


def fork_request(params: dict[str, Any]) -> tuple[str, str, list[acp.McpServer], list[str]]:
    request = acp.LoadSessionRequest.model_validate(params)  # the same fields: sessionId, cwd, mcpServers, dirs
    return request.session_id, request.cwd, request.mcp_servers, request.additional_directories
