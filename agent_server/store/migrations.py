"""Schema changes as ordered, named functions; each runs once and is recorded in `_migrations`."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from typing import Any

from . import legacy_meta
from .db import Database

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[tuple[str, Migration]] = []


def migration(fn: Migration) -> Migration:
    MIGRATIONS.append((fn.__name__, fn))
    return fn


@migration
def m001_sessions_and_messages(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            cwd TEXT NOT NULL,
            title TEXT,
            title_explicit INTEGER NOT NULL DEFAULT 0,
            model TEXT,
            created_at REAL NOT NULL,
            updated_at REAL NOT NULL,
            -- messages with id <= history_base are represented by history_entries (a compacted history)
            history_base INTEGER NOT NULL DEFAULT 0
        )"""
    )
    conn.execute("CREATE INDEX sessions_cwd_updated ON sessions (cwd, updated_at)")
    conn.execute("CREATE INDEX sessions_updated ON sessions (updated_at)")
    message_columns = """
            role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
            content TEXT NOT NULL DEFAULT '',
            thinking TEXT NOT NULL DEFAULT '',
            tool_calls TEXT NOT NULL DEFAULT '[]',
            tool_call_id TEXT,
            tool_name TEXT,
            meta TEXT NOT NULL DEFAULT '{}',
            token_count INTEGER,
            created_at REAL NOT NULL"""
    conn.execute(
        f"""CREATE TABLE messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,{message_columns}
        )"""
    )
    conn.execute("CREATE INDEX messages_session ON messages (session_id, id)")
    conn.execute(
        f"""CREATE TABLE history_entries (
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,{message_columns},
            PRIMARY KEY (session_id, position)
        )"""
    )
    conn.execute(
        """CREATE TABLE summaries (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            text TEXT NOT NULL,
            covers_until INTEGER NOT NULL,
            created_at REAL NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX summaries_session ON summaries (session_id, id)")


@migration
def m002_permission_decisions(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE permission_decisions (
            id TEXT PRIMARY KEY,
            workspace TEXT NOT NULL,
            tool TEXT NOT NULL,
            pattern TEXT,
            allow INTEGER NOT NULL,
            created REAL NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX permission_decisions_workspace ON permission_decisions (workspace)")


@migration
def m003_capabilities(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE capabilities (
            base_url TEXT NOT NULL,
            model TEXT NOT NULL,
            info TEXT NOT NULL,
            updated_at REAL NOT NULL,
            PRIMARY KEY (base_url, model)
        )"""
    )


@migration
def m004_checkpoints(conn: sqlite3.Connection) -> None:
    conn.execute(
        """CREATE TABLE checkpoints (
            id TEXT PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            workspace TEXT NOT NULL,
            turn_message_id INTEGER NOT NULL,
            prompt TEXT NOT NULL DEFAULT '',
            kind TEXT NOT NULL CHECK (kind IN ('git', 'files')),
            before_ref TEXT,
            after_ref TEXT,
            created_at REAL NOT NULL
        )"""
    )
    conn.execute("CREATE INDEX checkpoints_session ON checkpoints (session_id, turn_message_id)")
    conn.execute("CREATE INDEX checkpoints_workspace ON checkpoints (workspace, created_at)")
    conn.execute(
        """CREATE TABLE checkpoint_files (
            checkpoint_id TEXT NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
            path TEXT NOT NULL,
            before BLOB,
            before_exists INTEGER NOT NULL,
            after BLOB,
            after_exists INTEGER NOT NULL DEFAULT 0,
            after_recorded INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (checkpoint_id, path)
        )"""
    )


@migration
def m005_workspace_trust(conn: sqlite3.Connection) -> None:
    # One answer per workspace and config-file content: a changed file is asked about again.
    conn.execute(
        """CREATE TABLE workspace_trust (
            workspace TEXT NOT NULL,
            config_hash TEXT NOT NULL,
            trusted INTEGER NOT NULL,
            decided_at REAL NOT NULL,
            PRIMARY KEY (workspace, config_hash)
        )"""
    )


@migration
def m006_session_mode(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE sessions ADD COLUMN mode TEXT")


@migration
def m007_message_search(conn: sqlite3.Connection) -> None:
    """A trigram full-text index of what the user and the model wrote, for searching sessions by content (any
    substring of 3+ characters). Kept by triggers, so every writer (server, CLI, an older process) keeps it."""
    conn.execute("CREATE VIRTUAL TABLE message_search USING fts5(content, tokenize = 'trigram')")
    said = "('user', 'assistant')"
    conn.execute(f"INSERT INTO message_search (rowid, content) SELECT id, content FROM messages WHERE role IN {said}")
    conn.execute(
        f"""CREATE TRIGGER message_search_insert AFTER INSERT ON messages WHEN new.role IN {said}
        BEGIN INSERT INTO message_search (rowid, content) VALUES (new.id, new.content); END"""
    )
    conn.execute(
        """CREATE TRIGGER message_search_delete AFTER DELETE ON messages
        BEGIN DELETE FROM message_search WHERE rowid = old.id; END"""
    )
    conn.execute(
        f"""CREATE TRIGGER message_search_update AFTER UPDATE OF content ON messages WHEN new.role IN {said}
        BEGIN DELETE FROM message_search WHERE rowid = old.id;
        INSERT INTO message_search (rowid, content) VALUES (new.id, new.content); END"""
    )


@migration
def m008_checkpoint_origin(conn: sqlite3.Connection) -> None:
    # 'restore': the workspace kept just before a restore, so the restore itself can be undone.
    conn.execute("ALTER TABLE checkpoints ADD COLUMN origin TEXT NOT NULL DEFAULT 'turn'")


@migration
def m009_measured_formats(conn: sqlite3.Connection) -> None:
    # The edit format the scorecard measured for a model on this machine (turn/edit_format.py reads it); keyed by
    # the model, not the server: the same model behind Ollama or llama.cpp edits the same way.
    conn.execute(
        """CREATE TABLE measured_formats (
            model TEXT PRIMARY KEY,
            edit_format TEXT NOT NULL,
            evidence TEXT NOT NULL,
            measured_at REAL NOT NULL
        )"""
    )


@migration
def m010_drop_summaries(conn: sqlite3.Connection) -> None:
    # Session summaries live in the compacted history (history_entries); this table was never read.
    conn.execute("DROP TABLE IF EXISTS summaries")


# The texts turn/tool_step.py gave a refused call before m011, and the rejection each stood for (the replay told
# them apart by these until then).
_REFUSALS = (
    ("Error: The user declined this ", {"by": "user", "reason": "you declined this call"}),
    ("Error: Policy denies ", {"by": "policy", "reason": "a deny rule matches"}),
)


@migration
def m011_message_marks(conn: sqlite3.Connection) -> None:
    """A message's control flags move from `meta` to the `marks` column (store/serialization.py), and a tool result
    is marked failed (and rejected) as the replay judged it until now: by its "Error:" prefix. The only place that
    reads the prefix, once: after this, the tool's own is_error is recorded with the result."""
    for table in ("messages", "history_entries"):
        conn.execute(f"ALTER TABLE {table} ADD COLUMN marks TEXT NOT NULL DEFAULT '{{}}'")
        last = 0
        while True:  # in pages: a long-used store holds many messages
            rows = conn.execute(
                f"SELECT rowid, role, content, meta FROM {table}"
                " WHERE rowid > ? AND (meta != '{}' OR role = 'tool') ORDER BY rowid LIMIT 500",
                (last,),
            ).fetchall()
            if not rows:
                break
            last = rows[-1][0]
            moved = [m for row in rows if (m := _marks_of_old(row[0], row[1], row[2], row[3])) is not None]
            conn.executemany(f"UPDATE {table} SET meta = ?, marks = ? WHERE rowid = ?", moved)


def _marks_of_old(rowid: int, role: str, content: str, meta_text: str) -> tuple[str, str, int] | None:
    try:
        meta: Any = json.loads(meta_text)
    except ValueError:
        return None
    if not isinstance(meta, dict):
        return None
    marks, rest = legacy_meta.split(meta)
    if role == "tool" and content.startswith("Error:"):
        marks["is_error"] = True
        for head, why in _REFUSALS:
            if content.startswith(head):
                marks["rejected"] = why
    if not marks:
        return None
    return json.dumps(rest, ensure_ascii=False), json.dumps(marks, ensure_ascii=False), rowid


def applied(db: Database) -> list[str]:
    with db.read() as conn:
        return [row["name"] for row in conn.execute("SELECT name FROM _migrations ORDER BY rowid")]


def migrate(db: Database) -> list[str]:
    """Apply the pending migrations; returns their names. Safe when several processes open the file at once."""
    done: list[str] = []
    # One IMMEDIATE transaction: a second process waits here, then sees everything already applied.
    with db.write() as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
        have = {row["name"] for row in conn.execute("SELECT name FROM _migrations")}
        for name, fn in MIGRATIONS:
            if name in have:
                continue
            fn(conn)
            conn.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", (name, time.time()))
            done.append(name)
    return done
