"""Searching stored sessions by title and by what was said in them (the `message_search` trigram index).

A query of 3+ characters matches any substring of a user or assistant message through the index; a shorter one
matches titles and messages with LIKE (a scan, bounded by the page size). Newest updated first, paged by offset.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .records import SessionRecord

SNIPPET_CHARS = 80
_TRIGRAM = 3


@dataclass(frozen=True)
class SessionHit:
    record: SessionRecord
    snippet: str | None
    """A line of the first message that matched, around the match; None when only the title matched."""


def _like(text: str) -> str:
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _phrase(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _snippet(content: str, query: str) -> str:
    at = content.lower().find(query.lower())
    if at < 0:
        return content[:SNIPPET_CHARS]
    start = max(0, at - SNIPPET_CHARS // 3)
    piece = " ".join(content[start : start + SNIPPET_CHARS].split())
    return ("…" if start else "") + piece + ("…" if start + SNIPPET_CHARS < len(content) else "")


def search_sessions(
    conn: sqlite3.Connection,
    select: str,
    to_record: Callable[[sqlite3.Row], SessionRecord],
    query: str,
    cwd: str | None,
    offset: int,
    limit: int,
) -> list[SessionHit]:
    """`select` is the store's session SELECT (alias `s`); `to_record` turns its rows into SessionRecords."""
    query = query.strip()
    like = _like(query)
    said = "m.role IN ('user', 'assistant')"
    if len(query) >= _TRIGRAM:
        in_messages = (
            "s.id IN (SELECT m.session_id FROM message_search f JOIN messages m ON m.id = f.rowid"
            " WHERE message_search MATCH ?)"
        )
        match: tuple[Any, ...] = (_phrase(query),)
    else:
        in_messages = f"s.id IN (SELECT m.session_id FROM messages m WHERE {said} AND m.content LIKE ? ESCAPE '\\')"
        match = (like,)
    where = f"(s.title LIKE ? ESCAPE '\\' OR {in_messages})"
    params: tuple[Any, ...] = (like, *match)
    if cwd is not None:
        where += " AND s.cwd = ?"
        params += (cwd,)
    rows = conn.execute(
        f"{select} WHERE {where} ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ? OFFSET ?", (*params, limit, offset)
    ).fetchall()
    hits: list[SessionHit] = []
    for row in rows:
        found = conn.execute(
            f"SELECT m.content FROM messages m WHERE m.session_id = ? AND {said} AND m.content LIKE ? ESCAPE '\\'"
            " ORDER BY m.id LIMIT 1",
            (row["id"], like),
        ).fetchone()
        hits.append(SessionHit(to_record(row), _snippet(found["content"], query) if found else None))
    return hits
