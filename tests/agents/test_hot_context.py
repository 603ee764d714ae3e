"""Seed 001's hot context: what it names, its budget, and that it stays out when there is nothing to say."""

from __future__ import annotations

from agent_server.context import estimate_text
from agent_server.context_sources.hot_context import hot_context, with_hot_context
from agent_server.messages import Message, ToolCall


def call(name: str, **args: object) -> Message:
    return Message(role="assistant", tool_calls=[ToolCall(id=f"c{name}{args}", name=name, arguments=dict(args))])


def test_names_files_read_and_changed_and_open_plan_items() -> None:
    history = [
        Message(role="user", content="fix it"),
        call("read_file", path="src/a.py"),
        call("read_file", path="src/b.py"),
        call("edit_file", path="src/a.py", old_text="x", new_text="y"),
        call("read_file", path="src/a.py"),
        call(
            "update_plan",
            entries=[
                {"content": "fix a", "priority": "high", "status": "completed"},
                {"content": "add a test", "priority": "medium", "status": "pending"},
            ],
        ),
    ]
    note = hot_context(history, 300)
    assert note is not None
    assert "Files changed in this session: src/a.py" in note
    assert "Files read in this session: src/a.py, src/b.py" in note  # most recent first, each once
    assert "Open plan items: add a test" in note and "fix a" not in note


def test_budget_shortens_then_drops_the_note() -> None:
    history = [call("read_file", path=f"pkg/module_{i:03d}/very_long_file_name_{i}.py") for i in range(40)]
    roomy = hot_context(history, 400)
    tight = hot_context(history, 60)
    assert roomy is not None and tight is not None and len(tight) < len(roomy)
    assert estimate_text(tight) <= 60
    assert hot_context(history, 5) is None
    assert hot_context(history, 0) is None


def test_nothing_to_say_leaves_the_prompt_alone() -> None:
    assert with_hot_context("hello", [Message(role="user", content="hi")], 300) == "hello"
    assert with_hot_context("hello", [call("read_file", path="a.py")], 300).startswith("hello\n\n<session-context>")
