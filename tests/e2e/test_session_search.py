"""Searching sessions through the real server: by title and by what was said, paged, scoped to a workspace, and
kept current when a session is deleted."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import prompt
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.lsp_client import RpcError


async def search(client: object, query: str, **extra: object) -> dict[str, object]:
    return await client.request("agent/session/search", {"query": query, **extra})  # type: ignore[attr-defined, no-any-return]


def ids(result: dict[str, object]) -> list[str]:
    return [s["sessionId"] for s in result["sessions"]]  # type: ignore[attr-defined, index]


async def test_search_matches_titles_and_message_contents(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    client = await start_server(workspace, llm_options(fake_llm))
    fake_llm.script(
        Reply.text("The tokenizer drops escaped quotes inside strings."),
        Reply.text("Renamed."),
    )
    parser = await new_session(client, workspace)
    await prompt(client, parser, "Fix the parser bug")
    rename = await new_session(client, workspace)
    await prompt(client, rename, "Rename the helpers")

    # Words only the model's answer holds find the session; the hit says where.
    found = await search(client, "escaped QUOTES", cwd=str(workspace))
    assert ids(found) == [parser]
    assert "escaped quotes" in found["sessions"][0]["snippet"]  # type: ignore[index]
    assert found["sessions"][0]["title"] == "Fix the parser bug"  # type: ignore[index]
    # Titles still match, short queries too; and nothing matches what nobody wrote.
    assert ids(await search(client, "rename")) == [rename]
    assert ids(await search(client, "he")) == [rename, parser]  # "the" in both, newest first
    assert ids(await search(client, "no such words")) == []
    # Another workspace's sessions are not in this one's results.
    assert ids(await search(client, "parser", cwd=str(tmp_path))) == []

    # A deleted session is gone from the results (the index follows the messages).
    assert await client.request("agent/session/delete", {"sessionId": parser}) == {}
    assert ids(await search(client, "escaped quotes")) == []
    with sqlite3.connect(tmp_path / "agent.db") as db:
        assert db.execute(
            "SELECT count(*) FROM message_search WHERE message_search MATCH '\"tokenizer\"'"
        ).fetchone() == (0,)


async def test_search_is_paged(start_server: Start, workspace: Path, fake_llm: FakeLLMServer) -> None:
    client = await start_server(workspace, llm_options(fake_llm))
    fake_llm.default_reply = Reply.text("about the cache layer")
    made = []
    for i in range(5):
        sid = await new_session(client, workspace)
        await prompt(client, sid, f"question {i}")
        made.append(sid)
    first = await search(client, "cache layer", limit=2)
    assert len(ids(first)) == 2 and first["nextCursor"]
    second = await search(client, "cache layer", limit=2, cursor=first["nextCursor"])
    third = await search(client, "cache layer", limit=2, cursor=second["nextCursor"])
    assert third["nextCursor"] is None
    assert ids(first) + ids(second) + ids(third) == list(reversed(made))


@pytest.mark.parametrize("params", [{}, {"query": ""}, {"query": 3}, {"query": "x", "cursor": "-1"}])
async def test_search_refuses_bad_params(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, params: dict[str, object]
) -> None:
    client = await start_server(workspace, llm_options(fake_llm))
    with pytest.raises(RpcError) as err:
        await client.request("agent/session/search", params)
    assert err.value.code == -32602
