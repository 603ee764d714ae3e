"""Time to first token (issue 27) through the real server and the fake LLM: the prompt prefix stays byte-identical
across turns, saved sessions are restored into llama.cpp's slot when they resume (and only when the saved prompt is
still the start of the new one), and the wait for the prompt to be read is shown."""

from __future__ import annotations

import itertools
import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import prompt
from tests.fakes import recorded
from tests.fakes.fake_llm import FakeLLMServer, Raw, RecordedRequest, Reply, Text
from tests.lsp_client import LspClient


def prefix(body: dict[str, Any]) -> str:
    """What comes before the conversation: the system message and the tool definitions, as sent."""
    return json.dumps([body["messages"][0], body.get("tools")])


def chats(fake: FakeLLMServer) -> list[dict[str, Any]]:
    return [r.json for r in fake.chat_requests()]


@pytest.mark.parametrize(
    "settings",
    [
        {},  # the lean prompt (a local server: auto)
        {"agent": {"leanPrompt": "off"}, "tools": {"maxPerRequest": 4}},  # the full tools, pre-filtered
    ],
    ids=["lean", "prefiltered"],
)
async def test_prefix_is_byte_identical_across_turns(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, settings: dict[str, Any]
) -> None:
    (workspace / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    client = await start_server(workspace, {**llm_options(fake_llm), **settings})
    fake_llm.script(
        Reply.tool_call("read_file", {"path": "calc.py"}),
        Reply.text("add subtracts."),
        Reply.tool_call("find_files", {"pattern": "**/test_*.py"}),
        Reply.text("There are none."),
        Reply.text("Plans are made of steps."),
    )
    sid = await new_session(client, workspace)
    # Three questions a per-message tool choice would answer with three different subsets.
    for question in ("Read calc.py and explain add.", "Find the test files by name.", "Make a plan of steps."):
        assert await prompt(client, sid, question) == "end_turn"
    bodies = chats(fake_llm)
    assert len(bodies) == 5
    assert len({prefix(b) for b in bodies}) == 1, "the system prompt or the tools changed between requests"
    # Nothing volatile before the history: each request extends the one before it, message for message.
    for before, after in itertools.pairwise(bodies):
        assert after["messages"][: len(before["messages"])] == before["messages"]
    if not settings:
        tools = [t["function"]["name"] for t in bodies[0]["tools"]]
        assert "read_file" in tools and "edit_file" in tools and "update_plan" not in tools


def as_llamacpp(fake: FakeLLMServer) -> None:
    fake.props = recorded.props()
    fake.models = recorded.fake_models()
    fake.flavor = "openai"


def slot_calls(fake: FakeLLMServer) -> list[str]:
    return [f"{r.path}?{r.query}" for r in fake.requests if r.path.startswith("/slots/")]


def wait_for(fake: FakeLLMServer, check: Any, timeout: float = 10.0) -> list[RecordedRequest]:
    deadline = time.monotonic() + timeout
    while not check() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert check(), [r.path for r in fake.requests]
    return fake.requests


async def run_and_restart(
    start_server: Start, workspace: Path, fake: FakeLLMServer, options: dict[str, Any]
) -> tuple[LspClient, str]:
    """One turn, then a new agent-server process that loads the session (closing the first saves its slot)."""
    first = await start_server(workspace, options)
    sid = await new_session(first, workspace)
    fake.script(Reply.text("Hello."))
    assert await prompt(first, sid, "Say hello.") == "end_turn"
    assert not slot_calls(fake)  # a session in use is not saved after every turn
    await first.close()
    assert [c for c in slot_calls(fake) if "action=save" in c] == ["/slots/0?action=save"]
    second = await start_server(workspace, options)
    await second.request("agent/session/load", {"sessionId": sid, "cwd": str(workspace), "mcpServers": []})
    return second, sid


def slot_options(fake: FakeLLMServer, slots: Path) -> dict[str, Any]:
    return llm_options(fake, provider="openai", slotSavePath=str(slots))


async def test_saved_session_resumes_with_its_slot_restored(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    as_llamacpp(fake_llm)
    fake_llm.slot_files = {}
    slots = tmp_path / "slots"
    slots.mkdir()
    second, sid = await run_and_restart(start_server, workspace, fake_llm, slot_options(fake_llm, slots))
    records = list(slots.glob("agent-server-*.json"))
    assert len(records) == 1 and json.loads(records[0].read_text())["n_saved"] > 0
    saved = [r for r in fake_llm.requests if r.path.startswith("/slots/")]
    fake_llm.script(Reply.text("Hello again."))
    assert await prompt(second, sid, "Once more.") == "end_turn"
    paths = [r.path for r in fake_llm.requests]
    restore = [i for i, r in enumerate(fake_llm.requests) if "action=restore" in r.query]
    last_chat = max(i for i, p in enumerate(paths) if p == "/v1/chat/completions")
    assert len(restore) == 1 and restore[0] < last_chat, slot_calls(
        fake_llm
    )  # restored before the resumed session's request
    assert fake_llm.requests[restore[0]].json == {"filename": saved[0].json["filename"]}


async def test_changed_history_is_not_restored(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    as_llamacpp(fake_llm)
    fake_llm.slot_files = {}
    slots = tmp_path / "slots"
    slots.mkdir()
    second, sid = await run_and_restart(start_server, workspace, fake_llm, slot_options(fake_llm, slots))
    # The saved cache no longer starts the prompt (as after a compaction, an edit of the history, another model).
    record = next(slots.glob("agent-server-*.json"))
    data = json.loads(record.read_text())
    record.write_text(json.dumps({**data, "prompt_sha256": "0" * 64}))
    fake_llm.script(Reply.text("Hello again."))
    assert await prompt(second, sid, "Once more.") == "end_turn"
    assert not any("action=restore" in c for c in slot_calls(fake_llm))
    said = [u["content"]["text"] for u in second.updates(sid) if u["sessionUpdate"] == "agent_message_chunk"]
    assert "".join(said).endswith("Hello.Hello again.")  # the replay, then the new answer


async def test_server_without_slot_saving_still_answers(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    as_llamacpp(fake_llm)  # slot_files None: 501 like llama-server started without --slot-save-path
    client = await start_server(workspace, slot_options(fake_llm, tmp_path / "slots"))
    first, second = await new_session(client, workspace), await new_session(client, workspace)
    fake_llm.script(Reply.text("One."), Reply.text("Two."), Reply.text("Three."))
    assert await prompt(client, first, "First.") == "end_turn"
    assert await prompt(client, second, "Second.") == "end_turn"  # takes the slot: the first is saved (refused)
    assert await prompt(client, first, "Third.") == "end_turn"
    await client.close()
    assert slot_calls(fake_llm) == ["/slots/0?action=save"]  # refused once, never asked again
    assert sum(r.path == "/apply-template" for r in fake_llm.requests) == 1  # no restore is tried after that


async def test_an_idle_session_is_saved_before_another_takes_the_slot(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    as_llamacpp(fake_llm)
    fake_llm.slot_files = {}
    client = await start_server(workspace, slot_options(fake_llm, tmp_path / "slots"))
    first, second = await new_session(client, workspace), await new_session(client, workspace)
    fake_llm.script(Reply.text("One."), Reply.text("Two."), Reply.text("Three."))
    assert await prompt(client, first, "First.") == "end_turn"
    assert await prompt(client, second, "Second.") == "end_turn"
    log = [f"{r.path}?{r.query}" for r in fake_llm.requests if r.path != "/props"]
    saves = [i for i, c in enumerate(log) if "action=save" in c]
    chats = [i for i, c in enumerate(log) if c.startswith("/v1/chat/completions")]
    assert len(saves) == 1 and chats[0] < saves[0] < chats[1], log  # the first session, before the second's request
    # Back to the first session: the second is saved, the first restored from its file.
    assert await prompt(client, first, "Third.") == "end_turn"
    log = [f"{r.path}?{r.query}" for r in fake_llm.requests if r.path != "/props"]
    assert [c for c in log if c.startswith("/slots/")][1:] == ["/slots/0?action=save", "/slots/0?action=restore"], log
    assert log[-1].startswith("/v1/chat/completions")


def progress_reply(answer: str) -> Reply:
    """llama.cpp's prompt_progress chunks, as recorded from xllamacpp (tests/fakes/recorded/), then the answer."""
    chunks = [
        line
        for line in (recorded.DIR / "llamacpp_progress.sse").read_text().split("\n\n")
        if '"prompt_progress"' in line
    ]
    return Reply(steps=[*(Raw(c + "\n\n") for c in chunks), Text(answer)])


async def test_prompt_reading_progress_is_shown(start_server: Start, workspace: Path, fake_llm: FakeLLMServer) -> None:
    as_llamacpp(fake_llm)
    client = await start_server(workspace, llm_options(fake_llm, provider="openai"))
    sid = await new_session(client, workspace)
    fake_llm.script(progress_reply("Hi."))
    assert await prompt(client, sid, "Hello?") == "end_turn"
    assert fake_llm.chat_requests()[0].json.get("return_progress") is True
    thoughts = "".join(u["content"]["text"] for u in client.updates(sid) if u["sessionUpdate"] == "agent_thought_chunk")
    assert "reading the prompt (" in thoughts and "%…" in thoughts and thoughts.rstrip().endswith("done]"), thoughts
    answer = [u for u in client.updates(sid) if u["sessionUpdate"] == "agent_message_chunk"]
    assert "".join(u["content"]["text"] for u in answer) == "Hi."


async def test_progress_is_not_asked_of_other_servers(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.flavor = "openai"  # no /props: not llama.cpp, which may reject unknown fields
    client = await start_server(workspace, llm_options(fake_llm, provider="openai"))
    sid = await new_session(client, workspace)
    fake_llm.script(Reply.text("Hi."))
    assert await prompt(client, sid, "Hello?") == "end_turn"
    assert "return_progress" not in fake_llm.chat_requests()[0].json
