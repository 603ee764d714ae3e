"""A tool-free answer that shows code and changed nothing is told to make the change with a tool, and the next
request requires a call (guards/unapplied_code.py); commands, output and a turn that already changed a file are left
alone. In process, against a ScriptedProvider."""

from __future__ import annotations

from pathlib import Path

from agent_server.llm.scripted import ScriptedProvider, call
from agent_server.turn.guards.unapplied_code import shows_code
from tests.turn.inprocess import RecordingClient, run, scripted_service

FIXED = "The bug is in `calc.py`. Here is the updated code:\n\n```python\ndef double(x):\n    return x * 2\n```\n"


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text("def double(x):\n    return x + 2\n")
    return ws


async def test_code_shown_but_not_applied_is_asked_for_as_a_tool_call(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    fix = call("edit_file", path="calc.py", old_text="return x + 2", new_text="return x * 2")
    provider = ScriptedProvider(FIXED, fix, "Fixed: double now multiplies.")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
        assert await run(service, client, ws, "double(3) returns 5, fix it") == "end_turn"
    assert (ws / "calc.py").read_text() == "def double(x):\n    return x * 2\n"
    second = provider.requests[1]
    assert "no file was changed" in second.messages[-1].content and "edit_file" in second.messages[-1].content
    assert second.options.tool_choice == "required"  # the server insists on a call this once
    assert provider.requests[2].options.tool_choice != "required"


async def test_a_command_or_an_answer_after_a_change_is_not_nudged(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    provider = ScriptedProvider("Run the tests with:\n\n```bash\npython -m pytest -q\npython -m pytest -q -x\n```\n")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
        assert await run(service, client, ws, "How do I run the tests?") == "end_turn"
    assert len(provider.requests) == 1
    changed = ScriptedProvider(call("write_file", path="calc.py", content="def double(x):\n    return x * 2\n"), FIXED)
    client = RecordingClient()
    async with scripted_service(ws, changed, client, agent={"edit_format": "tools"}) as service:
        assert await run(service, client, ws, "fix double") == "end_turn"
    assert len(changed.requests) == 2  # the change was made: showing it afterwards is a summary


async def test_the_nudge_is_given_once_per_turn_and_not_with_nudges_off(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    provider = ScriptedProvider(FIXED, FIXED, FIXED)
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
        assert await run(service, client, ws, "fix double") == "end_turn"
    assert len(provider.requests) == 2
    off = ScriptedProvider(FIXED)
    client = RecordingClient()
    settings = {"edit_format": "tools", "continuation_nudges": 0}
    async with scripted_service(ws, off, client, agent=settings) as service:
        assert await run(service, client, ws, "fix double") == "end_turn"
    assert len(off.requests) == 1


def test_what_counts_as_code() -> None:
    assert shows_code(FIXED)
    assert shows_code("```\nx = compute()\nprint(x)\n```")  # no language, but an assignment
    assert not shows_code("```\nFAILED tests/test_a.py::test_x\n1 failed\n```")  # output
    assert not shows_code('```json\n{"name": "read_file",\n "arguments": {}}\n```')  # a call written as text
    assert not shows_code("```python\nreturn x * 2\n```")  # one line: a hint, not a change


async def test_code_in_an_answer_to_a_question_is_the_answer(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    for question in ("explain double", "How would I make double multiply?"):
        provider = ScriptedProvider(FIXED)
        client = RecordingClient()
        async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
            assert await run(service, client, ws, question) == "end_turn"
        assert len(provider.requests) == 1, question
