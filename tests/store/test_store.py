"""The session store against a real SQLite file."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_server.config import Settings
from agent_server.errors import SessionNotFoundError, StoreError
from agent_server.messages import FileDiff, Message, Rejection, Repetition, ToolCall
from agent_server.store import Decision, Store, derive_title
from agent_server.tools.permissions import DecisionStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "data" / "agent.db")
    yield s
    s.close()


def test_creates_parent_dirs_and_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "agent.db"
    with Store(path) as s:
        s.create_session("/w")
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_default_path_is_under_user_data_dir() -> None:
    path = Settings().database_path()
    with Store(path) as s:
        s.create_session("/w")
    assert path.is_file()


def test_round_trip_of_every_message_field(store: Store) -> None:
    sid = store.create_session("/w", model="qwen3").id
    msgs = [
        Message("system", "you are helpful"),
        Message("user", "fix the bug in ünïcode.py"),
        Message(
            "assistant",
            "",
            thinking="let me look",
            tool_calls=[
                ToolCall("c1", "read_file", {"path": "a.py", "nested": {"x": [1, 2]}}),
                ToolCall("c2", "run_command", {}, arguments_error="Expecting value: line 1"),
            ],
        ),
        Message("tool", "print('hi')", tool_call_id="c1", tool_name="read_file", meta={"client": {"x": 1}}),
        Message("tool", "Exit code: 2", tool_call_id="c2", tool_name="run_command", is_error=True),
        Message("tool", "no", tool_call_id="c3", is_error=True, rejected=Rejection("user", "you declined this call")),
        Message("tool", "Edited", tool_call_id="c4", diffs=[FileDiff("a.py", "new\n", "old\n"), FileDiff("b", "x")]),
        Message("tool", "[a.py: indexed]", tool_call_id="c5", on_read="Full indexing", pruned=True, shrunk=True),
        Message("user", "Continue now.", nudge="guard"),
        Message("user", "tests fail", nudge="verify"),
        Message("user", "The files: …", display="fix it"),
        Message("assistant", "partial", interrupted="cancelled", repetition=Repetition("ab", 9, "thinking")),
        Message("assistant", "<blocks>", recovered_tool_calls=True, calls_not_run=3, compacted=True),
        Message("system", "Summary", summary=True, notes={"requests": ["fix it"]}),
    ]
    ids = [store.append_message(sid, m, token_count=i * 10) for i, m in enumerate(msgs)]
    assert ids == sorted(ids)
    assert store.transcript(sid) == msgs
    assert store.load_messages(sid) == msgs


def test_unknown_session_is_a_clear_error(store: Store) -> None:
    for call in (
        lambda: store.get_session("nope"),
        lambda: store.append_message("nope", Message("user", "x")),
        lambda: store.load_messages("nope"),
        lambda: store.transcript("nope"),
        lambda: store.delete_session("nope"),
        lambda: store.set_title("nope", "t"),
    ):
        with pytest.raises(SessionNotFoundError, match="nope"):
            call()


def test_duplicate_session_id_is_rejected(store: Store) -> None:
    store.create_session("/w", session_id="s1")
    with pytest.raises(StoreError, match="s1"):
        store.create_session("/w", session_id="s1")


def test_the_title_is_what_the_user_typed_not_what_the_model_was_sent(store: Store) -> None:
    # The files edit format sends the files first ("The files: …"): the session is named by the typed request.
    a = store.create_session("/w").id
    sent = "The files:\n\nleap.py\n```python\n...\n```\n\nFix leap year"
    store.append_message(a, Message("user", "Continue now.", nudge="guard"))
    first = store.append_message(a, Message("user", sent, display="Fix leap year in leap.py"))
    store.append_message(a, Message("assistant", "done"))
    second = store.append_message(a, Message("user", sent.replace("leap", "fizz"), display="Now fizzbuzz"))
    assert store.get_session(a).title == "Fix leap year in leap.py"
    store.cut_from(a, first)
    assert store.get_session(a).title is None
    store.append_message(a, Message("user", sent, display="Start again"))
    assert store.get_session(a).title == "Start again"
    assert second > first


def test_title_from_first_user_message_unless_set(store: Store) -> None:
    a = store.create_session("/w").id
    store.append_message(a, Message("system", "sys"))
    store.append_message(a, Message("user", "\n  Refactor the parser\nplease, thanks"))
    store.append_message(a, Message("user", "second question"))
    assert store.get_session(a).title == "Refactor the parser"

    b = store.create_session("/w", title="Mine").id
    store.append_message(b, Message("user", "hello"))
    assert store.get_session(b).title == "Mine"

    c = store.create_session("/w").id
    store.set_title(c, "Chosen")
    store.append_message(c, Message("user", "hello"))
    assert store.get_session(c).title == "Chosen"


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("short", "short"),
        ("", None),
        ("   \n\n", None),
        ("x" * 100, "x" * 59 + "…"),
        ("line one\nline two", "line one"),
    ],
)
def test_derive_title(text: str, title: str | None) -> None:
    assert derive_title(text) == title


def test_list_sessions_newest_updated_first_and_filtered_by_cwd(store: Store) -> None:
    a = store.create_session("/one").id
    b = store.create_session("/two").id
    c = store.create_session("/one").id
    time.sleep(0.01)
    store.append_message(a, Message("user", "bump"))
    assert [s.id for s in store.list_sessions()] == [a, c, b]
    assert [s.id for s in store.list_sessions(cwd="/one")] == [a, c]
    assert [s.id for s in store.list_sessions(limit=1)] == [a]
    assert store.get_session(a).message_count == 1
    assert store.get_session(a).updated_at_iso.endswith("Z")


def test_delete_session_removes_its_messages(store: Store, tmp_path: Path) -> None:
    sid = store.create_session("/w").id
    store.append_message(sid, Message("user", "hello"))
    store.delete_session(sid)
    with pytest.raises(SessionNotFoundError):
        store.get_session(sid)
    conn = sqlite3.connect(store.path)
    assert conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 0


def test_replace_history_keeps_transcript_and_later_appends(store: Store) -> None:
    sid = store.create_session("/w").id
    original = [Message("user", f"q{i}") if i % 2 == 0 else Message("assistant", f"a{i}") for i in range(6)]
    for m in original:
        store.append_message(sid, m)
    compacted = [Message("system", "summary: q0..q3", summary=True), original[4], original[5]]
    store.replace_history(sid, compacted)
    later = Message("user", "q6")
    store.append_message(sid, later)
    assert store.load_messages(sid) == [*compacted, later]
    assert store.transcript(sid) == [*original, later]
    # A second compaction replaces the first one entirely.
    store.replace_history(sid, [later])
    assert store.load_messages(sid) == [later]
    assert len(store.transcript(sid)) == 7


def test_permission_decisions(store: Store) -> None:
    decisions: DecisionStore = store  # the permission policy takes the store as its DecisionStore
    d1 = Decision("d1", "/w", "run_command", "pytest*", True, 1.0)
    d2 = Decision("d2", "/w", "write_file", None, False, 2.0)
    d3 = Decision("d3", "/other", "run_command", None, True, 3.0)
    for d in (d1, d2, d3):
        decisions.add(d)
    assert decisions.list("/w") == [d1, d2]
    # The same tool + pattern answered again replaces the old decision.
    d4 = Decision("d4", "/w", "write_file", None, True, 4.0)
    store.add(d4)
    assert store.list("/w") == [d1, d4]
    assert store.revoke("d1") is True
    assert store.revoke("d1") is False
    assert store.list("/w") == [d4]


def test_capability_cache(store: Store) -> None:
    assert store.get_capabilities("http://127.0.0.1:11434", "qwen3") is None
    store.put_capabilities("http://127.0.0.1:11434", "qwen3", {"context_length": 40960, "tools": True})
    store.put_capabilities("http://127.0.0.1:11434", "qwen3", {"context_length": 32768, "tools": True})
    assert store.get_capabilities("http://127.0.0.1:11434", "qwen3") == {"context_length": 32768, "tools": True}
    assert store.get_capabilities("http://127.0.0.1:1234", "qwen3") is None


def test_data_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "agent.db"
    with Store(path) as s:
        sid = s.create_session("/w").id
        s.append_message(sid, Message("user", "remember me"))
    with Store(path) as s:
        assert s.transcript(sid) == [Message("user", "remember me")]


def test_closed_store_is_a_clear_error(tmp_path: Path) -> None:
    s = Store(tmp_path / "agent.db")
    s.close()
    with pytest.raises(StoreError, match="closed"):
        s.list_sessions()


def test_unserializable_meta_is_rejected_without_writing(store: Store) -> None:
    sid = store.create_session("/w").id
    with pytest.raises(StoreError, match="serializable"):
        store.append_message(sid, Message("user", "x", meta={"bad": object()}))
    assert store.transcript(sid) == []


def test_threads_and_two_processes_worth_of_connections_share_the_file(tmp_path: Path) -> None:
    path = tmp_path / "agent.db"
    a, b = Store(path), Store(path)  # two independent connections, as two server processes would have
    sid = a.create_session("/w").id
    errors: list[BaseException] = []

    def writer(s: Store, tag: str) -> None:
        try:
            for i in range(50):
                s.append_message(sid, Message("user", f"{tag}{i}"))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(s, t)) for s, t in ((a, "a"), (b, "b"), (a, "c"), (b, "d"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    contents = [m.content for m in a.transcript(sid)]
    assert len(contents) == 200 and len(set(contents)) == 200
    for tag in "abcd":  # each writer's messages are in its own order
        mine = [c for c in contents if c[0] == tag]
        assert mine == [f"{tag}{i}" for i in range(50)]
    a.close()
    b.close()
