"""Migrations: from an empty file, re-opening is a no-op, and several openers at once are safe; a store an older
release left opens with its messages as they were."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from agent_server import acp
from agent_server.messages import FileDiff, Message, Rejection, Repetition
from agent_server.session.replay import replay_updates
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


# --- m011: the control flags leave `meta` -------------------------------------------------------------------------

OLD_ROWS: list[tuple[str, str, str, str | None, dict[str, Any]]] = [
    # (role, content, tool_calls, tool_call_id, meta) as releases before m011 wrote them
    ("user", "[hot context]\n\nfix calc.py", "[]", None, {"display": "fix calc.py", "_images": [], "client": 7}),
    (
        "assistant",
        "<blocks>",
        '[{"id": "c1", "name": "edit_file", "arguments": {}}]',
        None,
        {"recovered_tool_calls": True, "calls_not_run": 2},
    ),
    ("tool", "Error: The user declined this edit_file call. Do not retry it as is", "[]", "c1", {}),
    ("tool", "Error: Policy denies write_file here (a deny rule matches).", "[]", "c2", {}),
    ("tool", "Error: interrupted; the agent stopped before this call finished.", "[]", "c3", {}),
    (
        "tool",
        "Edited calc.py",
        "[]",
        "c4",
        {"diffs": [{"type": "diff", "path": "/w/calc.py", "oldText": "a - b\n", "newText": "a + b\n"}]},
    ),
    ("tool", "Not run: this is the same call as the previous ones", "[]", "c5", {}),
    ("user", "Continue: use the tools.", "[]", None, {"nudge": True}),
    ("user", "FAILED test_calc.py::test_add", "[]", None, {"nudge": True, "verify": True}),
    ("assistant", "looping looping", "[]", None, {"repetition": {"span": "looping ", "repeats": 9, "in": "text"}}),
    ("assistant", "half an ans", "[]", None, {"cancelled": True}),
]


def _old_store(path: Path) -> str:
    """A store as the release before m011 left it: its migrations, a session, and the rows of OLD_ROWS (plus a
    compacted history with a summary); returns the session id."""
    db = Database(path)
    with db.write() as conn:
        conn.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
        for name, fn in MIGRATIONS[: [n for n, _ in MIGRATIONS].index("m010_drop_summaries") + 1]:
            fn(conn)
            conn.execute("INSERT INTO _migrations VALUES (?, 0)", (name,))
        conn.execute("INSERT INTO sessions (id, cwd, created_at, updated_at) VALUES ('s', '/w', 0, 0)")
        for role, content, calls, call_id, meta in OLD_ROWS:
            conn.execute(
                "INSERT INTO messages (session_id, role, content, tool_calls, tool_call_id, meta, created_at)"
                " VALUES ('s', ?, ?, ?, ?, ?, 0)",
                (role, content, calls, call_id, json.dumps(meta)),
            )
        summary = {"summary": True, "notes": {"requests": ["fix calc.py"]}}
        for position, (role, content, meta) in enumerate(
            [("system", "Summary: fix calc.py", summary), ("tool", "[cut] Exit code: 0", {"pruned": True})]
        ):
            conn.execute(
                "INSERT INTO history_entries (session_id, position, role, content, tool_call_id, meta, created_at)"
                " VALUES ('s', ?, ?, ?, 'c9', ?, 0)",
                (position, role, content, json.dumps(meta)),
            )
    db.close()
    return "s"


def test_an_old_store_opens_with_its_flags_typed_and_its_meta_left_open(tmp_path: Path) -> None:
    sid = _old_store(tmp_path / "old.db")
    with Store(tmp_path / "old.db") as store:
        said, blocks, declined, denied, interrupted, edited, not_run, nudge, verify, loop, cut = store.transcript(sid)
        summary, pruned = store.load_messages(sid)[:2]
    assert said.typed_by_user and said.as_typed == "fix calc.py" and said.meta == {"client": 7}
    assert blocks.recovered_tool_calls and blocks.calls_not_run == 2 and blocks.meta == {}
    assert declined.is_error and declined.rejected == Rejection("user", "you declined this call")
    assert denied.is_error and denied.rejected == Rejection("policy", "a deny rule matches")
    assert interrupted.is_error and interrupted.rejected is None
    assert edited.diffs == [FileDiff("/w/calc.py", "a + b\n", "a - b\n")] and not edited.is_error
    assert not not_run.is_error  # replayed as completed before m011, as it still is
    assert (nudge.nudge, verify.nudge) == ("guard", "verify") and not nudge.typed_by_user
    assert loop.repetition == Repetition("looping ", 9, "text") and cut.interrupted == "cancelled"
    assert summary.summary and summary.notes == {"requests": ["fix calc.py"]} and pruned.pruned
    conn = sqlite3.connect(tmp_path / "old.db")
    leftover = [m for (m,) in conn.execute("SELECT meta FROM messages UNION SELECT meta FROM history_entries")]
    assert sorted(leftover) == sorted(['{"_images": [], "client": 7}', "{}"])


def test_an_old_store_replays_its_nudges_as_notes_and_its_refusals_as_rejected(tmp_path: Path) -> None:
    sid = _old_store(tmp_path / "old.db")
    with Store(tmp_path / "old.db") as store:
        updates = list(replay_updates(store.transcript(sid), None))
    users = [u.content.text for u in updates if isinstance(u, acp.UserMessageChunk)]  # type: ignore[union-attr]
    assert users == ["fix calc.py"]
    notes = [u.content.text for u in updates if isinstance(u, acp.AgentThoughtChunk)]  # type: ignore[union-attr]
    assert any("Continue: use the tools." in n for n in notes) and any("FAILED test_calc.py" in n for n in notes)
    ended = {u.tool_call_id: u for u in updates if isinstance(u, acp.ToolCallProgress) and u.status}
    assert {k: u.status for k, u in ended.items()} == {
        "c1": "failed", "c2": "failed", "c3": "failed", "c4": "completed", "c5": "completed",
    }  # fmt: skip
    assert ended["c1"].meta == {"rejected": {"by": "user", "reason": "you declined this call"}}
    assert ended["c2"].meta == {"rejected": {"by": "policy", "reason": "a deny rule matches"}}
    assert any(isinstance(c, acp.Diff) and c.new_text == "a + b\n" for c in ended["c4"].content or [])


def test_rows_an_older_release_still_writes_are_read_with_their_flags(tmp_path: Path) -> None:
    # Two editors share the file and one still runs the release before m011: its nudges are no prompts here either.
    with Store(tmp_path / "a.db") as store:
        sid = store.create_session("/w").id
        with store.db.write() as conn:
            conn.execute(
                "INSERT INTO messages (session_id, role, content, meta, created_at) VALUES (?, 'user', ?, ?, 0)",
                (sid, "Continue.", json.dumps({"nudge": True})),
            )
        store.append_message(sid, Message("user", "sent with context", meta={"display": "typed"}))
        older, caller = store.transcript(sid)
        assert older.nudge == "guard" and not older.typed_by_user
        assert caller.display == "typed" and caller.meta == {}  # a caller still passing `display` in meta
        assert store.get_session(sid).title == "typed"
