"""The files format ends a turn after the same file was sent back unchanged twice (write_file's refusal), and only
then: it knows that refusal by the result's typed flag (`ToolResult.unchanged`), never by its words, which a file
may hold too (an edit that did not apply quotes the file's closest lines in its error)."""

from __future__ import annotations

from pathlib import Path

from agent_server.llm.scripted import ScriptedProvider
from tests.turn.inprocess import RecordingClient, run, scripted_service

MESSAGES = 'SAME = "{path} already has exactly this content, so nothing was written."\ndef retries():\n    return 1\n'
FIXED = MESSAGES.replace("return 1", "return 3")


def missed(wrong: str) -> str:
    """A search/replace block whose search text is not in the file: the error quotes the closest lines."""
    return f"messages.py\n<<<<<<< SEARCH\n{wrong}\n=======\ndef retries():\n    return 3\n>>>>>>> REPLACE\n"


async def test_edits_that_missed_a_file_quoting_the_refusal_are_not_taken_for_unchanged_files(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "messages.py").write_text(MESSAGES)
    provider = ScriptedProvider(
        missed("def retry(n):\n    return n"),
        missed("def retry(n):\n    return n + 1"),
        f"messages.py\n```python\n{FIXED}```\n",  # the third answer is the fix
    )
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "files"}) as service:
        assert await run(service, client, ws, "messages.py: retries() should return 3. Fix it.") == "end_turn"
    results = client.tool_results()
    assert sum("already has exactly this content" in r for r in results[:2]) == 2  # the errors quote the file
    assert (ws / "messages.py").read_text() == FIXED  # two misses did not end the turn: the fix landed
    assert len(provider.requests) == 3


async def test_the_same_unchanged_file_twice_still_ends_the_turn(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "messages.py").write_text(MESSAGES)
    provider = ScriptedProvider(*[f"messages.py\n```python\n{MESSAGES}```\n"] * 3)
    client = RecordingClient()
    async with scripted_service(ws, provider, client, agent={"edit_format": "files"}) as service:
        assert await run(service, client, ws, "messages.py: retries() should return 3. Fix it.") == "end_turn"
    assert len(provider.requests) == 2 and client.asked == []
    assert (ws / "messages.py").read_text() == MESSAGES
