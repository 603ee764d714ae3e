"""After write_file refused a file sent back unchanged, the next request is sampled (guards/resample.py): what the
server is asked with, request by request, in process against a ScriptedProvider."""

from __future__ import annotations

from pathlib import Path

from agent_server.llm.scripted import ScriptedProvider, call
from tests.turn.inprocess import RecordingClient, run, scripted_service

SOURCE = "def retries():\n    return 1\n"
FIXED = "def retries():\n    return 3\n"
SAME = f"messages.py\n```python\n{SOURCE}```\n"
ON = {"resample_temperature": 0.7}  # off by default (docs/scorecard.md: it finished no more tasks)


def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "messages.py").write_text(SOURCE)
    return ws


async def test_the_request_after_an_unchanged_file_is_sampled_and_the_next_ones_are_greedy_again(
    tmp_path: Path,
) -> None:
    ws = workspace(tmp_path)
    provider = ScriptedProvider(
        call("write_file", id="w1", path="messages.py", content=SOURCE),  # the file as it is: refused
        call("write_file", id="w2", path="messages.py", content=FIXED),
        "Done.",
    )
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent=ON | {"edit_format": "tools"}, llm={"temperature": 0}) as s:
        assert await run(s, client, ws, "messages.py: retries() should return 3. Fix it.") == "end_turn"
    temps = [r.options.temperature for r in provider.requests]
    assert temps == [0, 0.7, 0]
    assert provider.requests[1].options.seed is not None and provider.requests[0].options.seed is None
    assert (ws / "messages.py").read_text() == FIXED


async def test_the_files_format_second_look_is_sampled_and_a_warmer_setting_is_never_lowered(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    provider = ScriptedProvider(SAME, f"messages.py\n```python\n{FIXED}```\n")
    client = RecordingClient()
    async with scripted_service(
        ws, provider, client, agent=ON | {"edit_format": "files"}, llm={"temperature": 0.2}
    ) as s:
        assert await run(s, client, ws, "messages.py: retries() should return 3. Fix it.") == "end_turn"
    assert [r.options.temperature for r in provider.requests] == [0.2, 0.7]
    assert (ws / "messages.py").read_text() == FIXED

    ws2 = tmp_path / "warm"
    ws2.mkdir()
    (ws2 / "messages.py").write_text(SOURCE)
    provider = ScriptedProvider(SAME, f"messages.py\n```python\n{FIXED}```\n")
    async with scripted_service(
        ws2, provider, client, agent=ON | {"edit_format": "files"}, llm={"temperature": 1.0}
    ) as s:
        assert await run(s, client, ws2, "messages.py: retries() should return 3. Fix it.") == "end_turn"
    assert [r.options.temperature for r in provider.requests] == [1.0, 1.0]


async def test_off_by_default_or_unset_temperature_leaves_every_request_as_configured(tmp_path: Path) -> None:
    for llm, agent, expected in (
        ({"temperature": 0}, {"edit_format": "files"}, [0, 0]),  # off by default
        ({}, ON | {"edit_format": "files"}, [None, None]),  # the server's default already samples
    ):
        ws = tmp_path / str(len(llm))
        ws.mkdir()
        (ws / "messages.py").write_text(SOURCE)
        provider = ScriptedProvider(SAME, f"messages.py\n```python\n{FIXED}```\n")
        client = RecordingClient()
        async with scripted_service(ws, provider, client, agent=agent, llm=llm) as s:
            assert await run(s, client, ws, "messages.py: retries() should return 3. Fix it.") == "end_turn"
        assert [r.options.temperature for r in provider.requests] == expected
