"""Seed 000's flow for files the agent reads, automatic context and background embeddings, through the server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Start, llm_options, new_session
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.lsp_client import LspClient

SOURCE = (
    "\n".join(
        [
            "import math",
            "",
            "",
            "class Circle:",
            '    """A circle."""',
            "",
            "    def __init__(self, r):",
            "        self.r = r",
            "",
            "    def area(self):",
            "        return math.pi * self.r ** 2",
            "",
            "",
            "def perimeter_of(circle):",
            "    return 2 * math.pi * circle.r",
            "",
        ]
        + [f"# filler line {i}" for i in range(60)]
    )
    + "\n"
)


async def read_then_answer(client: LspClient, sid: str, fake: FakeLLMServer) -> None:
    fake.script(Reply.tool_call("read_file", {"path": "shapes.py"}), Reply.text("Read it."))
    result = await client.request(
        "agent/session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "read shapes.py"}]}
    )
    assert result == {"stopReason": "end_turn"}


async def next_turn_tool_result(client: LspClient, sid: str, fake: FakeLLMServer) -> str:
    fake.script(Reply.text("ok"))
    await client.request("agent/session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "and now?"}]})
    messages = fake.chat_requests()[-1].json["messages"]
    return str(next(m["content"] for m in messages if m["role"] == "tool"))


async def test_full_indexing_keeps_an_outline_in_later_rounds(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "shapes.py").write_text(SOURCE)
    client = await start_server(workspace, {**llm_options(fake_llm), "index": {"onRead": "full"}})
    sid = await new_session(client, workspace)
    await read_then_answer(client, sid, fake_llm)
    # In the turn itself the model saw the whole file.
    assert "filler line 59" in fake_llm.chat_requests()[1].json["messages"][-1]["content"]
    later = await next_turn_tool_result(client, sid, fake_llm)
    assert "filler line 59" not in later
    assert "class Circle: lines 4-11" in later and "perimeter_of: lines 14-15" in later
    assert any(
        u["sessionUpdate"] == "tool_call" and u["title"].startswith("Full indexing: shapes.py")
        for u in client.updates(sid)
    )
    # The file is now in the index too.
    hits = (await client.request("agent/_index/search", {"query": "perimeter_of"}))["results"]
    assert hits and hits[0]["path"] == "shapes.py"


async def test_metadata_only(start_server: Start, workspace: Path, fake_llm: FakeLLMServer) -> None:
    (workspace / "shapes.py").write_text(SOURCE)
    client = await start_server(workspace, {**llm_options(fake_llm), "index": {"onRead": "metadata"}})
    sid = await new_session(client, workspace)
    await read_then_answer(client, sid, fake_llm)
    later = await next_turn_tool_result(client, sid, fake_llm)
    assert "76 lines" in later and "Circle" in later and "perimeter_of" in later
    assert "math.pi" not in later


async def test_ask_lets_the_user_keep_one_symbol(start_server: Start, workspace: Path, fake_llm: FakeLLMServer) -> None:
    (workspace / "shapes.py").write_text(SOURCE)
    client = await start_server(workspace, {**llm_options(fake_llm), "index": {"onRead": "ask"}})
    questions: list[dict[str, Any]] = []

    def choose(params: dict[str, Any]) -> dict[str, str]:
        questions.append(params)
        titles = [a["title"] for a in params["actions"]]
        if "Keep a line range" in titles:
            return {"title": "Keep a line range"}
        return {"title": next(t for t in titles if t.startswith("perimeter_of"))}

    client.handlers["window/showMessageRequest"] = choose
    sid = await new_session(client, workspace)
    await read_then_answer(client, sid, fake_llm)
    later = await next_turn_tool_result(client, sid, fake_llm)
    assert "shapes.py" in questions[0]["message"] and "76 lines" in questions[0]["message"]
    assert [a["title"] for a in questions[0]["actions"]] == [
        "Full indexing",
        "Keep a line range",
        "Metadata only",
        "Keep as is",
    ]
    assert "only lines 14-15 (perimeter_of) kept" in later
    assert "15\t    return 2 * math.pi * circle.r" in later
    assert "class Circle" not in later


async def test_auto_context_is_injected_and_shown(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "shapes.py").write_text(SOURCE)
    (workspace / "other.py").write_text("def unrelated():\n    return 1\n")
    client = await start_server(workspace, {**llm_options(fake_llm), "index": {"autoContext": True}})
    await client.request("agent/_index/start", {})
    await client.wait_for(
        lambda: any(p["value"]["kind"] == "end" for _, m, p in client.notifications if m == "$/progress"), 30
    )
    sid = await new_session(client, workspace)
    fake_llm.script(Reply.text("It is pi r squared."))
    await client.request(
        "agent/session/prompt",
        {"sessionId": sid, "prompt": [{"type": "text", "text": "how is the circle area computed?"}]},
    )
    messages = fake_llm.chat_requests()[-1].json["messages"]
    assert (
        messages[-1]["role"] == "tool"
        and "shapes.py:" in messages[-1]["content"]
        and "math.pi" in messages[-1]["content"]
    )
    assert messages[-2]["tool_calls"][0]["function"]["name"] == "codebase_search"
    cards = [u for u in client.updates(sid) if u["sessionUpdate"] == "tool_call"]
    assert cards and cards[0]["title"] == "Workspace context for this prompt"


async def test_embeddings_are_computed_in_the_background(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "shapes.py").write_text(SOURCE)
    opts = llm_options(fake_llm)
    opts["llm"]["embeddingModel"] = fake_llm.models[0].name
    client = await start_server(workspace, {**opts, "index": {"embeddings": True}})
    await client.request("agent/_index/start", {})
    await client.wait_for(
        lambda: any(p["value"]["kind"] == "end" for _, m, p in client.notifications if m == "$/progress"), 30
    )

    async def embedded() -> int:
        return int((await client.request("agent/_index/status", {}))["embeddings"])

    for _ in range(100):
        if await embedded() > 0:
            break
        await asyncio.sleep(0.1)
    assert await embedded() > 0
    assert any(r.path == "/api/embed" for r in fake_llm.requests)
    hits = (await client.request("agent/_index/search", {"query": "circle area"}))["results"]
    assert hits and hits[0]["path"] == "shapes.py"
