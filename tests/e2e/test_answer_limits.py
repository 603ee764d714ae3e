"""Hostile answers through the real server (issue 38): what the model writes is read in linear time, off the event
loop, and at most `agent.max_text_calls` of the calls read from it run.

Thousands of unclosed `<<<<<<< SEARCH` markers, fences, `<tool_call>` tags or `{"` openers used to take the parsers
quadratic time on the event loop (8,000 markers: 14-22 s in which not even a cancel was answered); an answer of
2,000 file blocks wrote 2,000 files under `write_file = "allow"`.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import ANSWERED_MEANWHILE_S, answer_permissions, install_apply_edit, prompt_params, sent_messages
from tests.fakes.fake_llm import FakeLLMServer, FakeModel, FakeToolCall, Reply, ToolCalls
from tests.lsp_client import LspClient

PROBE_LIMIT_S = ANSWERED_MEANWHILE_S  # the old parsers held the event loop 14-22 s


def options(fake: FakeLLMServer, **agent: Any) -> dict[str, Any]:
    # The repetition guard would cut these repetitive answers while they stream: they must reach the parsers whole.
    return {**llm_options(fake), "agent": {"repetitionGuard": False, **agent}}


async def answered_meanwhile(client: LspClient, ws: Path, fake: FakeLLMServer, text: str) -> tuple[str, float]:
    """Run a turn whose answer the fake has scripted; from the moment the whole answer was sent, keep asking the
    server for its permission list until the turn ends. The turn's stop reason and the slowest of those answers."""
    sid = await new_session(client, ws)
    turn = asyncio.ensure_future(client.request("agent/session/prompt", prompt_params(sid, text), timeout=120))
    sent = await asyncio.to_thread(lambda: fake.wait_for_requests(1, timeout=60)[0].wait_done(60))
    assert sent, "the fake never finished sending the answer"
    slowest = 0.0
    while True:
        started = time.monotonic()
        await client.request("agent/_permissions/list", {"cwd": str(ws)}, timeout=120)
        slowest = max(slowest, time.monotonic() - started)
        if turn.done():
            break
        await asyncio.sleep(0.1)
    return str((await turn)["stopReason"]), slowest


async def test_thousands_of_unclosed_search_markers_and_fences_are_read_while_the_server_answers(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "leap.py").write_text("def leap_year(year):\n    pass\n")
    hostile = "leap.py\n" + "<<<<<<< SEARCH\nx\n" * 8000 + "```python\nx\n" * 8000 + "~~~~~~\ny\n" * 4000
    fake_llm.script(Reply.text(hostile, pieces=400))
    client = await start_server(workspace, options(fake_llm, editFormat="files"))
    stop, slowest = await answered_meanwhile(client, workspace, fake_llm, "Fix leap.py")
    assert stop == "end_turn"
    assert slowest < PROBE_LIMIT_S, f"a request waited {slowest:.1f} s while the answer was read"
    assert (workspace / "leap.py").read_text() == "def leap_year(year):\n    pass\n"  # nothing in it is an edit


async def test_thousands_of_unclosed_tool_calls_are_read_while_the_server_answers(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    hostile = (
        '<tool_call>{"name": "read_file"\n' * 4000
        + '```json\n{"name": "read_file", "arguments": {"path": "a\n' * 4000
        + '{"a' * 20000
        + "<function=read_file><parameter=path>x"
        + " " * 20000
        + "y"
    )
    fake_llm.models = [FakeModel(context_length=1_000_000)]  # the answer goes back with the nudge that follows it
    fake_llm.script(Reply.text(hostile, pieces=400))
    client = await start_server(workspace, options(fake_llm))
    stop, slowest = await answered_meanwhile(client, workspace, fake_llm, "look around")
    assert stop in ("end_turn", "max_turn_requests")
    assert slowest < PROBE_LIMIT_S, f"a request waited {slowest:.1f} s while the answer was read"


def file_blocks(count: int) -> str:
    return "".join(f"new/f{i}.py\n```python\nx = {i}\n```\n\n" for i in range(count))


def text_calls(count: int) -> str:
    call = '<tool_call>{{"name": "write_file", "arguments": {{"path": "new/f{i}.py", "content": "x = {i}\\n"}}}}</tool_call>\n'
    return "".join(call.format(i=i) for i in range(count))


def native_calls(count: int) -> Reply:
    calls = [FakeToolCall("write_file", {"path": f"new/f{i}.py", "content": f"x = {i}\n"}) for i in range(count)]
    return Reply(steps=[ToolCalls(calls)])


@pytest.mark.parametrize(("edit_format", "count"), [("files", 2000), ("tools", 300), ("native", 300)])
async def test_an_answer_runs_at_most_the_cap_and_the_model_is_told_the_rest_were_not_applied(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, edit_format: str, count: int
) -> None:
    (workspace / "leap.py").write_text("def leap_year(year):\n    pass\n")
    if edit_format == "native":  # calls the model server parsed: capped the same way
        fake_llm.script(native_calls(count), Reply.text("Understood."))
        kind, edit_format = "tool calls", "tools"
    else:
        answer, kind = (
            (file_blocks(count), "edit blocks") if edit_format == "files" else (text_calls(count), "tool calls")
        )
        fake_llm.script(Reply.text(answer, pieces=50), Reply.text("Understood."))
    policy = {"tools": {"policy": {"write_file": "allow"}}}  # agent.max_text_calls left at its default, 20
    client = await start_server(workspace, {**options(fake_llm, editFormat=edit_format), **policy})
    answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    result = await client.request("agent/session/prompt", prompt_params(sid, "Fix leap.py"), timeout=120)
    assert result["stopReason"] == "end_turn"
    written = sorted(p.name for p in (workspace / "new").iterdir())
    assert written == sorted(f"f{i}.py" for i in range(20)), written  # the first 20, in the answer's order
    told = [str(m["content"]) for m in sent_messages(fake_llm, 1) if m["role"] == "user"]
    note = f"Only the first 20 of the {count} {kind} in your answer were applied"
    assert any(note in t and f"the other {count - 20} were not applied" in t for t in told), told[-2:]


async def test_a_chat_block_merged_into_a_big_file_leaves_the_server_answering(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    client = await start_server(workspace, llm_options(fake_llm))
    small = {"text": "def f(x):\n    return 1\n", "block": "def f(x):\n    return 2\n"}
    assert (await client.request("agent/_mergeBlock", small, timeout=60))["text"] == small["block"]  # first use
    text = "".join(f"def f{i}(x):\n    return {i}\n" for i in range(40_000))  # no place for the block: seconds
    params = {"text": text, "block": "def g(y):\n    return 1\n"}
    merge = asyncio.ensure_future(client.request("agent/_mergeBlock", params, timeout=300))
    slowest, probes = 0.0, 0
    while not merge.done():
        started = time.monotonic()
        await client.request("agent/_permissions/list", {"cwd": str(workspace)}, timeout=300)
        slowest, probes = max(slowest, time.monotonic() - started), probes + 1
        await asyncio.sleep(0.1)
    assert (await merge) == {"text": None}
    assert probes > 1 and slowest < PROBE_LIMIT_S, f"a request waited {slowest:.1f} s while a block was merged"
