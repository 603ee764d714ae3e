"""What a `files`-format model sees of its own earlier answers: the text it wrote, and what the blocks did as the
user's reply; never JSON tool calls, which a small model copies instead of answering with files."""

from __future__ import annotations

from agent_server.messages import Message, ToolCall
from agent_server.turn.edit_formats.files import as_files_chat

ANSWER = "leap.py\n```python\ndef leap_year(y):\n    return True\n```\n\nutil.py\n```python\nX = 1\n```"


def test_block_calls_become_the_answer_text_and_one_user_reply() -> None:
    calls = [ToolCall(id="e1", name="write_file", arguments={}), ToolCall(id="e2", name="write_file", arguments={})]
    history = [
        Message(role="user", content="Fix leap.py"),
        Message(role="assistant", content=ANSWER, tool_calls=calls, recovered_tool_calls=True),
        Message(role="tool", content="Overwrote leap.py (2 lines).", tool_call_id="e1", tool_name="write_file"),
        Message(role="tool", content="Error: util.py already has exactly this content", tool_call_id="e2"),
        Message(role="user", content="The tests failed."),
    ]
    out = as_files_chat(history)
    assert [(m.role, m.content) for m in out] == [
        ("user", "Fix leap.py"),
        ("assistant", ANSWER),
        ("user", "Overwrote leap.py (2 lines).\nError: util.py already has exactly this content"),
        ("user", "The tests failed."),
    ]
    assert not any(m.tool_calls for m in out)


def test_a_native_call_keeps_its_tool_message() -> None:
    call = ToolCall(id="n1", name="read_file", arguments={"path": "a.py"})
    history = [
        Message(role="assistant", content="", tool_calls=[call]),
        Message(role="tool", content="x = 1", tool_call_id="n1", tool_name="read_file"),
    ]
    assert as_files_chat(history) == history
