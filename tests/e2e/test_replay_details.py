"""Details a resumed session must get right: unique tool-call ids, edit diffs, the prompt as the user wrote it."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import answer_permissions, install_apply_edit
from tests.fakes.fake_llm import FakeLLMServer, FakeToolCall, Reply, ToolCalls


async def test_reused_tool_call_ids_become_unique_and_replay_shows_diffs_and_tags(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    client = await start_server(workspace, llm_options(fake_llm))
    answer_permissions(client, "allow_once")
    install_apply_edit(client)
    # Like servers that number calls per reply, the fake gives the first call of every reply the same id.
    fake_llm.script(
        Reply(steps=[ToolCalls([FakeToolCall("read_file", {"path": "calc.py"})])]),
        Reply(
            steps=[
                ToolCalls([FakeToolCall("edit_file", {"path": "calc.py", "old_text": "a - b", "new_text": "a + b"})])
            ]
        ),
        Reply.text("Fixed."),
    )
    sid = await new_session(client, workspace)
    selection = {
        "type": "resource",
        "resource": {"uri": (workspace / "calc.py").as_uri(), "text": "    return a - b", "mimeType": "text/x-python"},
        "_meta": {"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 16}}},
    }
    prompt = [selection, {"type": "text", "text": "this is wrong"}]
    assert await client.request("agent/session/prompt", {"sessionId": sid, "prompt": prompt}) == {
        "stopReason": "end_turn"
    }
    ids = [u["toolCallId"] for u in client.updates(sid) if u["sessionUpdate"] == "tool_call"]
    assert len(ids) == 2 and len(set(ids)) == 2, ids
    sent = fake_llm.chat_requests()[-1].json["messages"]
    results = [m for m in sent if m["role"] == "tool"]
    assert len(results) == 2 and "return a - b" in results[0]["content"]
    await client.close()

    again = await start_server(workspace, llm_options(fake_llm))
    await again.request("agent/session/load", {"sessionId": sid, "cwd": str(workspace), "mcpServers": []})
    replay = again.updates(sid)
    user = [u["content"]["text"] for u in replay if u["sessionUpdate"] == "user_message_chunk"]
    assert user == ["[calc.py lines 2-2] this is wrong"]
    diffs = [
        c
        for u in replay
        if u["sessionUpdate"] == "tool_call_update"
        for c in u.get("content", [])
        if c["type"] == "diff"
    ]
    assert (
        diffs
        and diffs[0]["newText"] == "def add(a, b):\n    return a + b\n"
        and diffs[0]["oldText"].endswith("a - b\n")
    )
