"""The same read again with nothing changed: a pointer to the result the model already has, never a stale one."""

from __future__ import annotations

from agent_server.messages import Message, ToolCall
from agent_server.turn.guards.repeated_looks import RepeatedLooks

FILE = "calc.py (lines 1-2 of 2)\n1\tdef add(a, b):\n2\t    return a - b"


def read(path: str = "calc.py") -> ToolCall:
    return ToolCall(id="r", name="read_file", arguments={"path": path})


def shown(*texts: str) -> list[Message]:
    return [Message(role="user", content="fix calc.py"), *(Message(role="tool", content=t) for t in texts)]


def test_the_same_read_with_the_same_result_still_in_the_prompt_gets_a_short_note() -> None:
    looks = RepeatedLooks()
    assert looks.result(read(), "read", FILE, 1, shown()) == FILE
    note = looks.result(read(), "read", FILE, 2, shown(FILE))
    assert note != FILE and "round 1" in note and "calc.py" in note and "Do not make this call again" in note


def test_a_changed_file_is_shown_again_whole() -> None:
    looks = RepeatedLooks()
    looks.result(read(), "read", FILE, 1, shown())
    changed = FILE.replace("a - b", "a + b")
    assert looks.result(read(), "read", changed, 2, shown(FILE)) == changed
    # ...and from then on the new text is the one pointed to
    assert "round 2" in looks.result(read(), "read", changed, 3, shown(FILE, changed))


def test_a_result_the_model_no_longer_sees_is_sent_again() -> None:
    """Pruned, shrunk or compacted away: the note would point to nothing."""
    looks = RepeatedLooks()
    looks.result(read(), "read", FILE, 1, shown())
    pruned = FILE[:20] + "\n[… 40 more characters of this old tool result omitted]"
    assert looks.result(read(), "read", FILE, 2, shown(pruned)) == FILE


def test_other_arguments_and_tools_that_act_are_not_looks() -> None:
    looks = RepeatedLooks()
    looks.result(read(), "read", FILE, 1, shown())
    other = ToolCall(id="o", name="read_file", arguments={"path": "calc.py", "offset": 2})
    assert looks.result(other, "read", FILE, 2, shown(FILE)) == FILE
    run = ToolCall(id="x", name="run_command", arguments={"command": "pytest"})
    looks.result(run, "execute", "1 failed", 1, shown())
    assert looks.result(run, "execute", "1 failed", 2, shown("1 failed")) == "1 failed"  # commands run again
