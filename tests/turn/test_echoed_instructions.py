"""The echo guard: the server's instructions copied back are an echo; a real answer, or one longer than all the
instructions together (checked on the event loop, so never searched), is not."""

from __future__ import annotations

from agent_server.messages import Message, ToolCall
from agent_server.turn import prompts
from agent_server.turn.guards.echoed_instructions import (
    MAX_ECHO_CHARS,
    guard_nudges,
    instruction_sentences,
    is_echo,
)
from agent_server.turn.guards.unknown_tools import nudge_text

SYSTEM = "You are agent-server, a coding agent working inside the user's editor on the project at /w."


def test_instructions_copied_back_are_an_echo_and_an_answer_is_not() -> None:
    said = instruction_sentences(SYSTEM)
    assert is_echo(prompts.FILES_WHOLE_MANY + "\n" + prompts.FILES_NUDGE, said)
    assert is_echo("Sure. " + prompts.FILES_WHOLE_MANY, said)
    assert not is_echo("leap.py\n```python\ndef is_leap(y):\n    return y % 4 == 0\n```", said)
    assert not is_echo("The function returns True for years divisible by 4 but not by 100.", said)
    assert not is_echo("", said)


def test_an_answer_longer_than_every_instruction_together_is_not_searched() -> None:
    said = instruction_sentences(SYSTEM)
    huge = (prompts.FILES_WHOLE_MANY + " ") * (MAX_ECHO_CHARS // len(prompts.FILES_WHOLE_MANY) + 10_000)
    assert len(huge) > 50 * MAX_ECHO_CHARS
    assert not is_echo(huge, said)  # a loop of copies is the repetition guard's, not a question of echo


def test_only_the_guards_nudges_count_never_a_check_s_output_or_a_tool_s_result() -> None:
    # A traceback quotes the code, and a read file is what the files format sends back: copying those is no echo.
    nudge = nudge_text([ToolCall(id="1", name="open_file")], {"read_file", "write_file"})
    trace = "E   AssertionError: assert is_leap(1900) is False where the function returned True for the year"
    history = [Message(role="user", content="Fix leap.py"), Message(role="user", content=nudge, nudge="guard"),
               Message(role="user", content=trace, nudge="verify"), Message(role="tool", content=trace)]  # fmt: skip
    assert guard_nudges(history) == [nudge]
    said = instruction_sentences(SYSTEM, guard_nudges(history))
    assert is_echo(nudge, said) and not is_echo(nudge, instruction_sentences(SYSTEM))
    assert not is_echo(trace, said)
