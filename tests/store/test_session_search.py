"""Session search in the store: a store from before the search index gets its old messages indexed when it opens;
tool output is not searched; short queries and LIKE's wildcards are plain text."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from agent_server.messages import Message
from agent_server.store import Store


def test_an_older_store_gets_its_messages_indexed_when_opened(tmp_path: Path) -> None:
    db = tmp_path / "agent.db"
    with Store(db) as store:
        old = store.create_session("/w")
        store.append_message(old.id, Message(role="user", content="Why is the cache stale?"))
    # The store as an older version left it: no search index.
    with sqlite3.connect(db) as conn:
        for trigger in ("insert", "delete", "update"):
            conn.execute(f"DROP TRIGGER message_search_{trigger}")
        conn.execute("DROP TABLE message_search")
        conn.execute("DELETE FROM _migrations WHERE name = 'm007_message_search'")
    with Store(db) as store:
        assert [h.record.id for h in store.search_sessions("cache stale")] == [old.id]


def test_tool_output_is_not_searched_and_wildcards_are_text(tmp_path: Path) -> None:
    with Store(tmp_path / "agent.db") as store:
        s = store.create_session("/w")
        store.append_message(s.id, Message(role="user", content="run the tests"))
        store.append_message(s.id, Message(role="tool", content="FAILED test_secret_thing", tool_call_id="c1"))
        store.append_message(s.id, Message(role="assistant", content="100% done_now"))
        assert store.search_sessions("secret_thing") == []
        assert [h.snippet for h in store.search_sessions("0% d")] == ["100% done_now"]
        assert store.search_sessions("%") != [] and store.search_sessions("x_") == []
        assert [h.record.id for h in store.search_sessions("RUN")] == [s.id]
        store.cut_from(s.id, store.version(s.id)[0])  # the assistant message goes
        assert store.search_sessions("done_now") == []
