"""The guards of a tool-free answer and of the turn's end, in process (a real service against a ScriptedProvider):
what the model is told next and when the turn ends, as the user and the model would see it."""

from __future__ import annotations

from pathlib import Path

from agent_server import acp
from agent_server.llm.scripted import ScriptedProvider, call
from agent_server.turn import prompts
from tests.turn.inprocess import RecordingClient, run, scripted_service


def last_sent(provider: ScriptedProvider, index: int) -> str:
    return provider.requests[index].messages[-1].content


def thoughts(client: RecordingClient) -> str:
    return "".join(
        u.content.text
        for u in client.updates
        if isinstance(u, acp.AgentThoughtChunk) and isinstance(u.content, acp.TextContent)
    )


async def test_two_empty_answers_in_a_row_get_one_last_call_without_tools(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    provider = ScriptedProvider("", "", "Nothing was done yet.")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
        assert await run(service, client, ws, "Tidy the project") == "end_turn"
    assert last_sent(provider, 1) == prompts.CONTINUE_NUDGE
    assert last_sent(provider, 2) == prompts.FORCE_SUMMARY and not provider.requests[2].tools
    assert client.text() == "Nothing was done yet."


async def test_words_between_empty_answers_start_their_count_again(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    # Empty, an announcement (nudged to go on), empty again: one empty answer in a row, so no last summary yet.
    provider = ScriptedProvider("", "I will now tidy the project.", "", "Tidied.")
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "tools"}) as service:
        assert await run(service, client, ws, "Tidy the project") == "end_turn"
    assert [last_sent(provider, i) for i in (1, 2, 3)] == [prompts.CONTINUE_NUDGE] * 3
    assert all(r.tools for r in provider.requests)


async def test_a_failing_verify_command_sends_the_model_back_without_repeating_its_output(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    provider = ScriptedProvider(
        call("write_file", id="w1", path="a.txt", content="draft\n"),
        "Done.",
        call("write_file", id="w2", path="ok", content="yes\n"),
        "Done now.",
    )
    client = RecordingClient()
    agent = {"edit_format": "tools", "verify_command": "test -f ok"}
    async with scripted_service(ws, provider, client, agent=agent) as service:
        assert await run(service, client, ws, "Write a.txt and make the check pass") == "end_turn"
    told = last_sent(provider, 2)
    assert told.startswith("The check `test -f ok` failed") and len(provider.requests) == 4
    assert "test -f ok" not in thoughts(client)  # the check's card showed it; no note repeats it
    assert (ws / "ok").read_text() == "yes\n"
