"""Checkpoint rows in the session store: which turn, which snapshots, and (outside git) the files' copies."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Literal, cast

from ..store.db import Database

Kind = Literal["git", "files"]  # git: snapshots are commits under private refs; files: copies in SQLite
# turn: taken before a turn's first change; restore: taken before a restore, so the restore itself can be undone.
Origin = Literal["turn", "restore"]


@dataclass(frozen=True)
class CheckpointRecord:
    id: str
    session_id: str
    workspace: str
    turn_message_id: int  # the store id of the user message that started the turn
    prompt: str
    kind: Kind
    before_ref: str | None  # git: the snapshot commit taken before the turn's first change
    after_ref: str | None  # git: the snapshot at the end of the turn (None while the turn runs)
    created_at: float
    origin: Origin = "turn"


@dataclass(frozen=True)
class FileCopy:
    """Outside git: one file's content before the turn changed it and after the turn (None = did not exist)."""

    path: str  # absolute
    before: bytes | None
    after: bytes | None
    after_recorded: bool


def _row(r: sqlite3.Row) -> CheckpointRecord:
    return CheckpointRecord(
        id=r["id"],
        session_id=r["session_id"],
        workspace=r["workspace"],
        turn_message_id=r["turn_message_id"],
        prompt=r["prompt"],
        kind=cast(Kind, r["kind"]),
        before_ref=r["before_ref"],
        after_ref=r["after_ref"],
        created_at=r["created_at"],
        origin=cast(Origin, r["origin"]),
    )


class CheckpointTable:
    """Synchronous access to the checkpoint tables (callers use asyncio.to_thread)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def add(self, record: CheckpointRecord) -> None:
        with self.db.write() as conn:
            conn.execute(
                "INSERT INTO checkpoints (id, session_id, workspace, turn_message_id, prompt, kind, before_ref,"
                " after_ref, created_at, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.id,
                    record.session_id,
                    record.workspace,
                    record.turn_message_id,
                    record.prompt,
                    record.kind,
                    record.before_ref,
                    record.after_ref,
                    record.created_at,
                    record.origin,
                ),
            )

    def get(self, checkpoint_id: str) -> CheckpointRecord | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT * FROM checkpoints WHERE id = ?", (checkpoint_id,)).fetchone()
        return None if row is None else _row(row)

    def for_turn(self, session_id: str, turn_message_id: int) -> CheckpointRecord | None:
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT * FROM checkpoints WHERE session_id = ? AND turn_message_id = ? AND origin = 'turn'",
                (session_id, turn_message_id),
            ).fetchone()
        return None if row is None else _row(row)

    def select(self, session_id: str | None = None, workspace: str | None = None) -> list[CheckpointRecord]:
        """Oldest first."""
        query, params = "SELECT * FROM checkpoints", []
        if session_id is not None:
            query, params = query + " WHERE session_id = ?", [session_id]
        elif workspace is not None:
            query, params = query + " WHERE workspace = ?", [workspace]
        with self.db.read() as conn:
            return [_row(r) for r in conn.execute(query + " ORDER BY created_at, rowid", params)]

    def set_after(self, checkpoint_id: str, after_ref: str | None) -> None:
        with self.db.write() as conn:
            conn.execute("UPDATE checkpoints SET after_ref = ? WHERE id = ?", (after_ref, checkpoint_id))

    def delete(self, checkpoint_ids: list[str]) -> None:
        with self.db.write() as conn:
            conn.executemany("DELETE FROM checkpoints WHERE id = ?", [(i,) for i in checkpoint_ids])

    # --- file copies (non-git workspaces) ---------------------------------------------------------------

    def has_copy(self, checkpoint_id: str, path: str) -> bool:
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT 1 FROM checkpoint_files WHERE checkpoint_id = ? AND path = ?", (checkpoint_id, path)
            ).fetchone()
        return row is not None

    def add_copy(self, checkpoint_id: str, path: str, before: bytes | None) -> None:
        with self.db.write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO checkpoint_files (checkpoint_id, path, before, before_exists)"
                " VALUES (?, ?, ?, ?)",
                (checkpoint_id, path, before, int(before is not None)),
            )

    def set_after_copy(self, checkpoint_id: str, path: str, after: bytes | None) -> None:
        with self.db.write() as conn:
            conn.execute(
                "UPDATE checkpoint_files SET after = ?, after_exists = ?, after_recorded = 1"
                " WHERE checkpoint_id = ? AND path = ?",
                (after, int(after is not None), checkpoint_id, path),
            )

    def copies(self, checkpoint_id: str) -> list[FileCopy]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT * FROM checkpoint_files WHERE checkpoint_id = ? ORDER BY path", (checkpoint_id,)
            ).fetchall()
        return [
            FileCopy(
                path=r["path"],
                before=r["before"] if r["before_exists"] else None,
                after=r["after"] if r["after_exists"] else None,
                after_recorded=bool(r["after_recorded"]),
            )
            for r in rows
        ]
