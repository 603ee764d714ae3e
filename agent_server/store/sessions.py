"""The session store: sessions, their messages (transcript and model-facing history), permission
decisions and the model capability cache, in one SQLite file. Synchronous and thread-safe."""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any

from ..errors import SessionNotFoundError, StoreError
from ..messages import Message
from .db import Database, StoreBusy, Synchronous
from .migrations import migrate
from .records import Decision, SessionRecord
from .search import SessionHit, search_sessions
from .serialization import MESSAGE_COLUMNS, as_stored, message_values, row_to_message

TITLE_CHARS = 60
_SESSION_SELECT = """SELECT s.*, (SELECT count(*) FROM messages m WHERE m.session_id = s.id) AS message_count
    FROM sessions s"""
_COLS = ", ".join(MESSAGE_COLUMNS)
_MARKS = ", ".join("?" for _ in MESSAGE_COLUMNS)


def derive_title(text: str, limit: int = TITLE_CHARS) -> str | None:
    """The first non-empty line, cut to `limit` characters."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if not line:
        return None
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


class Store:
    """Everything agent-server remembers. Each write is its own transaction, so a crash loses at most one step."""

    def __init__(self, path: Path, *, synchronous: Synchronous = "NORMAL") -> None:
        self.path = path
        self.db = Database(path, synchronous=synchronous)
        try:
            migrate(self.db)
        except sqlite3.Error as exc:
            self.db.close()
            raise StoreError(f"cannot prepare the session store at {path}: {exc}") from exc

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- sessions ---------------------------------------------------------------------------------------

    def create_session(
        self, cwd: str, model: str | None = None, title: str | None = None, session_id: str | None = None
    ) -> SessionRecord:
        sid = session_id or uuid.uuid4().hex
        now = time.time()
        with self.db.write() as conn:
            try:
                conn.execute(
                    "INSERT INTO sessions (id, cwd, title, title_explicit, model, created_at, updated_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (sid, cwd, title, int(title is not None), model, now, now),
                )
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"session {sid} already exists") from exc
        return SessionRecord(sid, cwd, title, model, now, now, 0)

    def get_session(self, session_id: str) -> SessionRecord:
        with self.db.read() as conn:
            row = conn.execute(f"{_SESSION_SELECT} WHERE s.id = ?", (session_id,)).fetchone()
        if row is None:
            raise SessionNotFoundError(session_id)
        return _record(row)

    def list_sessions(self, cwd: str | None = None, limit: int = 100) -> list[SessionRecord]:
        """Newest updated first."""
        query = _SESSION_SELECT + (" WHERE s.cwd = ?" if cwd is not None else "")
        params: tuple[Any, ...] = (cwd,) if cwd is not None else ()
        with self.db.read() as conn:
            rows = conn.execute(f"{query} ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?", (*params, limit))
            return [_record(r) for r in rows]

    def search_sessions(self, query: str, cwd: str | None = None, offset: int = 0, limit: int = 50) -> list[SessionHit]:
        """Sessions whose title or messages hold `query` (case-insensitive), newest updated first."""
        with self.db.read() as conn:
            return search_sessions(conn, _SESSION_SELECT, _record, query, cwd, offset, limit)

    def delete_session(self, session_id: str) -> None:
        with self.db.write() as conn:
            if conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount == 0:
                raise SessionNotFoundError(session_id)

    def set_title(self, session_id: str, title: str) -> None:
        with self.db.write() as conn:
            cur = conn.execute("UPDATE sessions SET title = ?, title_explicit = 1 WHERE id = ?", (title, session_id))
            if cur.rowcount == 0:
                raise SessionNotFoundError(session_id)

    def set_mode(self, session_id: str, mode: str) -> None:
        with self.db.write() as conn:
            if conn.execute("UPDATE sessions SET mode = ? WHERE id = ?", (mode, session_id)).rowcount == 0:
                raise SessionNotFoundError(session_id)

    def get_mode(self, session_id: str) -> str | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT mode FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise SessionNotFoundError(session_id)
        return None if row["mode"] is None else str(row["mode"])

    # --- messages ---------------------------------------------------------------------------------------

    def append_message(self, session_id: str, message: Message, token_count: int | None = None) -> int:
        """Append one completed message in its own transaction; returns its id (increasing within the file)."""
        return self._append(session_id, message, token_count, wait=True)

    def try_append_message(self, session_id: str, message: Message, token_count: int | None = None) -> int | None:
        """`append_message`, or None at once (nothing written) if another thread or process is writing: cheap
        enough for the event loop, which falls back to `append_message` in a thread."""
        try:
            return self._append(session_id, message, token_count, wait=False)
        except StoreBusy:
            return None

    def _append(self, session_id: str, message: Message, token_count: int | None, wait: bool) -> int:
        values = message_values(message, token_count)
        now = time.time()
        # The first user message names a session without a title; the statement keeps any title there is.
        # What the user typed (`display`), not what the model was sent: in the files edit format the message opens
        # with the files ("The files: …"), which named every such session "The files:". A nudge is no title.
        said = as_stored(message)
        title = derive_title(said.as_typed) if said.typed_by_user else None
        with self.db.write(wait) as conn:
            touched = conn.execute(
                "UPDATE sessions SET updated_at = ?,"
                " title = CASE WHEN title IS NULL AND NOT title_explicit THEN ? ELSE title END WHERE id = ?",
                (now, title, session_id),
            )
            if touched.rowcount == 0:
                raise SessionNotFoundError(session_id)
            cur = conn.execute(
                f"INSERT INTO messages (session_id, {_COLS}, created_at) VALUES (?, {_MARKS}, ?)",
                (session_id, *values, now),
            )
            assert cur.lastrowid is not None
            return cur.lastrowid

    def transcript(self, session_id: str) -> list[Message]:
        """Every message as it was appended, compaction or not: what the user saw (for agent/session/load)."""
        with self.db.read() as conn:
            self._require(conn, session_id)
            rows = conn.execute(f"SELECT {_COLS} FROM messages WHERE session_id = ? ORDER BY id", (session_id,))
            return [row_to_message(r) for r in rows]

    def version(self, session_id: str) -> tuple[int, int]:
        """(last message id, compaction mark): changes whenever any process appends to or compacts the session."""
        with self.db.read() as conn:
            base = self._require(conn, session_id)["history_base"] or 0
            row = conn.execute("SELECT MAX(id) FROM messages WHERE session_id = ?", (session_id,)).fetchone()
        return (int(row[0] or 0), int(base))

    def load_messages(self, session_id: str) -> list[Message]:
        """The model-facing history: the last compacted history, then every message appended after it."""
        with self.db.read() as conn:
            base = self._require(conn, session_id)["history_base"]
            head = conn.execute(
                f"SELECT {_COLS} FROM history_entries WHERE session_id = ? ORDER BY position", (session_id,)
            ).fetchall()
            tail = conn.execute(
                f"SELECT {_COLS} FROM messages WHERE session_id = ? AND id > ? ORDER BY id", (session_id, base)
            ).fetchall()
        return [row_to_message(r) for r in head] + [row_to_message(r) for r in tail]

    def replace_history(self, session_id: str, messages: list[Message]) -> None:
        """Persist a compacted model-facing history atomically; it stands for every message appended so far."""
        rows = [message_values(m, None) for m in messages]
        now = time.time()
        with self.db.write() as conn:
            self._require(conn, session_id)
            last = conn.execute("SELECT max(id) FROM messages WHERE session_id = ?", (session_id,)).fetchone()[0]
            conn.execute("DELETE FROM history_entries WHERE session_id = ?", (session_id,))
            conn.executemany(
                f"INSERT INTO history_entries (session_id, position, {_COLS}, created_at) VALUES (?, ?, {_MARKS}, ?)",
                [(session_id, i, *values, now) for i, values in enumerate(rows)],
            )
            conn.execute(
                "UPDATE sessions SET history_base = ?, updated_at = ? WHERE id = ?", (last or 0, now, session_id)
            )

    def cut_from(self, session_id: str, message_id: int) -> int:
        """Forget message `message_id` and everything after it (a checkpoint restore that also rewinds the
        conversation). A compacted history that covers removed messages is dropped too, so nothing
        removed can reach the model again; returns how many messages were removed."""
        with self.db.write() as conn:
            base = self._require(conn, session_id)["history_base"] or 0
            removed = conn.execute(
                "DELETE FROM messages WHERE session_id = ? AND id >= ?", (session_id, message_id)
            ).rowcount
            if base >= message_id:
                conn.execute("DELETE FROM history_entries WHERE session_id = ?", (session_id,))
                conn.execute("UPDATE sessions SET history_base = 0 WHERE id = ?", (session_id,))
            conn.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (time.time(), session_id))
            # A title taken from a prompt that is gone would name what was removed: take it from the first left.
            users = conn.execute(
                f"SELECT {_COLS} FROM messages WHERE session_id = ? AND role = 'user' ORDER BY id LIMIT 20",
                (session_id,),
            ).fetchall()
            typed = next((m.as_typed for m in map(row_to_message, users) if m.typed_by_user), None)
            conn.execute(
                "UPDATE sessions SET title = ? WHERE id = ? AND NOT title_explicit",
                (derive_title(typed) if typed else None, session_id),
            )
        return int(removed)

    # --- permission decisions (the DecisionStore protocol) ----------------------------------------------

    def list(self, workspace: str) -> list[Decision]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT * FROM permission_decisions WHERE workspace = ? ORDER BY created, id", (workspace,)
            )
            return [
                Decision(r["id"], r["workspace"], r["tool"], r["pattern"], bool(r["allow"]), r["created"]) for r in rows
            ]

    def add(self, decision: Decision) -> None:
        """Remember a decision; a newer one for the same workspace, tool and pattern replaces the old."""
        with self.db.write() as conn:
            conn.execute(
                "DELETE FROM permission_decisions WHERE workspace = ? AND tool = ? AND pattern IS ?",
                (decision.workspace, decision.tool, decision.pattern),
            )
            conn.execute(
                "INSERT OR REPLACE INTO permission_decisions (id, workspace, tool, pattern, allow, created)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    decision.id,
                    decision.workspace,
                    decision.tool,
                    decision.pattern,
                    int(decision.allow),
                    decision.created,
                ),
            )

    def revoke(self, decision_id: str) -> bool:
        with self.db.write() as conn:
            return conn.execute("DELETE FROM permission_decisions WHERE id = ?", (decision_id,)).rowcount > 0

    # --- capability cache -------------------------------------------------------------------------------

    def get_capabilities(self, base_url: str, model: str) -> dict[str, Any] | None:
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT info FROM capabilities WHERE base_url = ? AND model = ?", (base_url, model)
            ).fetchone()
        if row is None:
            return None
        info = json.loads(row["info"])
        return info if isinstance(info, dict) else None

    def put_capabilities(self, base_url: str, model: str, info: dict[str, Any]) -> None:
        with self.db.write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO capabilities (base_url, model, info, updated_at) VALUES (?, ?, ?, ?)",
                (base_url, model, json.dumps(info), time.time()),
            )

    def get_measured_format(self, model_key: str) -> tuple[str, str] | None:
        """(edit format, evidence) the scorecard remembered for a model (`turn.edit_format.model_key`), if any."""
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT edit_format, evidence FROM measured_formats WHERE model = ?", (model_key,)
            ).fetchone()
        return None if row is None else (str(row["edit_format"]), str(row["evidence"]))

    def put_measured_format(self, model_key: str, edit_format: str, evidence: str) -> None:
        with self.db.write() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO measured_formats (model, edit_format, evidence, measured_at) "
                "VALUES (?, ?, ?, ?)",
                (model_key, edit_format, evidence, time.time()),
            )

    # ---------------------------------------------------------------------------------------------------

    @staticmethod
    def _require(conn: sqlite3.Connection, session_id: str) -> sqlite3.Row:
        row = conn.execute("SELECT history_base FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if row is None:
            raise SessionNotFoundError(session_id)
        return row  # type: ignore[no-any-return]


def _record(row: sqlite3.Row) -> SessionRecord:
    return SessionRecord(
        id=row["id"],
        cwd=row["cwd"],
        title=row["title"],
        model=row["model"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        message_count=row["message_count"],
    )
