"""Migrations: from an empty file, re-opening is a no-op, and several openers at once are safe."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from agent_server.messages import Message
from agent_server.store import Store
from agent_server.store.db import Database
from agent_server.store.migrations import MIGRATIONS, applied, migrate


def _schema(path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        return sorted(conn.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall())
    finally:
        conn.close()


def test_empty_db_gets_every_migration_in_order(tmp_path: Path) -> None:
    db = Database(tmp_path / "a.db")
    assert migrate(db) == [name for name, _ in MIGRATIONS]
    assert applied(db) == [name for name, _ in MIGRATIONS]
    db.close()


def test_reopen_is_a_noop_and_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    with Store(path) as s:
        sid = s.create_session("/w").id
        s.append_message(sid, Message("user", "hi"))
    before = _schema(path)
    db = Database(path)
    assert migrate(db) == []
    db.close()
    with Store(path) as s:
        assert s.transcript(sid) == [Message("user", "hi")]
    assert _schema(path) == before


def test_partially_migrated_db_gets_only_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = Database(path)
    with db.write() as conn:  # an "old release" that only knew the first migration
        conn.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
        name, fn = MIGRATIONS[0]
        fn(conn)
        conn.execute("INSERT INTO _migrations VALUES (?, 0)", (name,))
    assert migrate(db) == [name for name, _ in MIGRATIONS[1:]]
    db.close()


def test_concurrent_first_opens_migrate_once(tmp_path: Path) -> None:
    path = tmp_path / "race.db"
    code = (
        "import sys; from pathlib import Path; from agent_server.store import Store; Store(Path(sys.argv[1])).close()"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(path)], stderr=subprocess.PIPE) for _ in range(4)]
    for p in procs:
        _, err = p.communicate(timeout=60)
        assert p.returncode == 0, err.decode()
    db = Database(path)
    assert applied(db) == [name for name, _ in MIGRATIONS]
    db.close()
