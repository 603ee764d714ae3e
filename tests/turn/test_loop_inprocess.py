"""The turn loop in process, against a ScriptedProvider (issue 39): the steps of a turn, its guards and both edit
formats, each checked by what the user would see (files, answers, questions, stop reasons) and what the model was
sent next. The end-to-end suite keeps what needs the real server (the wire, the faces)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_server.llm.scripted import Scripted, ScriptedProvider, call
from tests.turn.inprocess import RecordingClient, run, scripted_service


def sent(provider: ScriptedProvider, index: int = -1) -> str:
    return "\n".join(m.content for m in provider.requests[index].messages)


async def test_a_read_then_an_answer_and_the_result_reaches_the_model(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.md").write_text("the answer is 42\n")
    provider = ScriptedProvider(call("read_file", path="notes.md"), "It says 42.")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
        assert await run(service, client, ws, "What does notes.md say?") == "end_turn"
    assert client.text() == "It says 42." and not client.asked  # reads never ask
    assert "the answer is 42" in sent(provider)


async def test_a_write_asks_and_a_rejection_leaves_the_file(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("old\n")
    provider = ScriptedProvider(call("write_file", path="a.txt", content="new\n"), "Left it.")
    client = RecordingClient(answer="reject_once")
    async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
        assert await run(service, client, ws, "Change a.txt") == "end_turn"
    assert [a.raw_input for a in client.asked] == [{"path": "a.txt", "content": "new\n"}]
    assert (ws / "a.txt").read_text() == "old\n" and "reject" in sent(provider).lower()


async def test_max_rounds_stops_the_turn(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("a\n")
    provider = ScriptedProvider(*[call("read_file", id=f"c{i}", path="a.txt") for i in range(5)])
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "tools", "max_rounds": 2}) as service:
        assert await run(service, client, ws, "Read a.txt") == "max_turn_requests"
    assert len(provider.requests) == 2


async def test_an_unknown_tool_is_answered_with_the_tools_there_are(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("hello\n")
    provider = ScriptedProvider(call("open_file", path="a.txt"), call("read_file", path="a.txt"), "It says hello.")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
        assert await run(service, client, ws, "Open a.txt") == "end_turn"
    second = sent(provider, 1)
    assert "open_file" in second and "read_file" in second  # the error names the tools there are
    assert client.text() == "It says hello."


async def test_a_guard_s_nudge_copied_back_is_no_answer_either(tmp_path: Path) -> None:
    # A small model told "`open_file` is not a tool. Your tools are: …" answers with that text; ended there, the user
    # would read the server's own words as the answer (seen with a peer's format error and the 1.5B).
    ws = tmp_path / "ws"
    ws.mkdir()

    def copy_back(request: Any) -> str:
        return str([m for m in request.messages if m.role == "user"][-1].content)

    wrong = '```json\n{"name": "open_file", "arguments": {"path": "notes"}}\n```'  # a call of a non-tool, as text
    provider = ScriptedProvider(wrong, copy_back, "There are no notes here.")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
        assert await run(service, client, ws, "What do my notes say?") == "end_turn"
    assert "is not a tool" in provider.requests[1].messages[-1].content  # what the model copied
    assert "repeated my instructions" in provider.requests[2].messages[-1].content
    assert client.text().endswith("There are no notes here.")


async def test_a_tool_call_written_as_text_is_run(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("TEXTCALL\n")
    fenced = '```json\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n```'
    provider = ScriptedProvider(fenced, "Read it.")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
        assert await run(service, client, ws, "Read a.txt") == "end_turn"
    assert "TEXTCALL" in sent(provider)


async def test_the_files_format_writes_the_answer_s_file_after_asking(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "leap.py").write_text("def is_leap(year):\n    return False\n")
    fixed = "def is_leap(year):\n    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n"

    def answer(request: object) -> str:
        return f"leap.py\n```python\n{fixed}```\n"

    provider = ScriptedProvider(answer, "Done.")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "files"}) as service:
        assert await run(service, client, ws, "Fix is_leap in leap.py") == "end_turn"
    assert "return False" in sent(provider, 0), "the file was shown in the prompt"
    assert (ws / "leap.py").read_text() == fixed
    assert [a.raw_input["path"] for a in client.asked if a.raw_input] == ["leap.py"]


async def test_a_looping_answer_is_cut_by_the_repetition_guard(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    loop = "I will check the file again. " * 400
    provider = ScriptedProvider(Scripted(text=loop, pieces=400))
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
        stop = await run(service, client, ws, "Check it")
    assert stop == "max_tokens"
    assert len(client.text()) < len(loop) / 2, "cut early, not at the end of the stream"


async def test_an_announcement_without_a_call_is_nudged_to_continue(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_text("CONTENT\n")
    provider = ScriptedProvider("I will now read a.txt.", call("read_file", path="a.txt"), "It holds CONTENT.")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
        assert await run(service, client, ws, "What is in a.txt?") == "end_turn"
    assert len(provider.requests) == 3 and "Continue" in provider.requests[1].messages[-1].content
    assert client.text().endswith("It holds CONTENT.")


async def test_plan_mode_takes_an_announced_change_as_the_plan_not_as_a_forgotten_action(tmp_path: Path) -> None:
    from agent_server import acp

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("x = 1\n")
    announce = "I will now change a.py to set x to 2."
    for mode, calls in (("plan", 2), ("code", 3)):
        provider = ScriptedProvider(call("read_file", path="a.py"), announce, "Done.")
        client = RecordingClient()
        async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
            session = await service.new_session(str(ws))
            await service.set_mode(session.id, mode)
            assert await service.prompt(session.id, [acp.TextContent(text="Set x to 2 in a.py")], client) == "end_turn"
        assert len(provider.requests) == calls, mode
        if mode == "code":  # with tools that act, the same announcement is nudged to act
            assert "call the tools" in provider.requests[2].messages[-1].content


async def test_the_instructions_copied_back_are_no_answer_and_the_model_is_asked_again(tmp_path: Path) -> None:
    from agent_server.turn import prompts

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "leap.py").write_text("def is_leap(year):\n    return False\n")
    fixed = "def is_leap(year):\n    return year % 4 == 0\n"
    echo = prompts.FILES_WHOLE_ONE.format(path="leap.py") + "\n" + prompts.FILES_NUDGE
    provider = ScriptedProvider(echo, f"leap.py\n```python\n{fixed}```\n", "Done.")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "files"}) as service:
        assert await run(service, client, ws, "Fix is_leap in leap.py") == "end_turn"
    assert "repeated my instructions" in provider.requests[1].messages[-1].content
    assert (ws / "leap.py").read_text() == fixed
