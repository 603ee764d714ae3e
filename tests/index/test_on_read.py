"""index.on_read after a turn, in process (a real AgentService, the ScriptedProvider): which reads it takes is decided by
what the tool reported and where the user's own message is, not by the text."""

from __future__ import annotations

from pathlib import Path

from agent_server import acp
from agent_server.llm.scripted import ScriptedProvider, call
from agent_server.messages import Message
from agent_server.session.service import AgentService
from tests.turn.inprocess import RecordingClient, scripted_service

SOURCE = "".join(f"def step_{i}(x):\n    return x + {i}\n\n" for i in range(30))  # 90 lines: worth shortening


async def turn_then_on_read(service: AgentService, client: RecordingClient, ws: Path, text: str) -> list[Message]:
    session = await service.new_session(str(ws))
    assert await service.prompt(session.id, [acp.TextContent(text=text)], client) == "end_turn"
    live = service.get(session.id)
    assert live.after_turn is not None
    await live.after_turn  # on_read runs after the answer, in the background
    return live.history


async def test_a_read_whose_text_starts_with_error_is_still_indexed(tmp_path: Path) -> None:
    # A file may be named anything: read_file's result begins with its name, here "Error: ...". It succeeded.
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "Error: steps.py").write_text(SOURCE)
    provider = ScriptedProvider(call("read_file", path="Error: steps.py"), "It defines step_0 to step_29.")
    client = RecordingClient()
    settings = {"agent": {"edit_format": "tools"}, "index": {"enabled": False, "on_read": "full"}}
    async with scripted_service(ws, provider, client, **settings) as service:
        history = await turn_then_on_read(service, client, ws, "What is in that file?")
    read = next(m for m in history if m.role == "tool")
    assert not read.is_error and read.content.startswith("[Error: steps.py: indexed; 90 lines.")
    assert "step_29" in read.content and "return x + 29" not in read.content


async def test_a_nudge_in_the_turn_keeps_the_reads_before_it(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "steps.py").write_text(SOURCE)
    # The empty answer after the read is nudged ("continue"): the nudge is no new turn of the user's.
    provider = ScriptedProvider(call("read_file", path="steps.py"), "", "It defines step_0 to step_29.")
    client = RecordingClient()
    settings = {"agent": {"edit_format": "tools"}, "index": {"enabled": False, "on_read": "full"}}
    async with scripted_service(ws, provider, client, **settings) as service:
        history = await turn_then_on_read(service, client, ws, "What is in steps.py?")
    assert [m.nudge for m in history if m.role == "user"] == [None, "guard"]
    read = next(m for m in history if m.role == "tool")
    assert read.on_read == "Full indexing" and read.content.startswith("[steps.py: indexed; 90 lines.")
