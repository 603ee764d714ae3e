"""The echo guard: the server's instructions copied back are an echo; a real answer, or one longer than all the
instructions together (checked on the event loop, so never searched), is not."""

from __future__ import annotations

from agent_server.turn import prompts
from agent_server.turn.guards.echoed_instructions import MAX_ECHO_CHARS, instruction_sentences, is_echo

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
