"""The turn loop end to end: the real server process, real tools on a real workspace, the fake LLM on loopback."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import (
    ANSWERED_MEANWHILE_S,
    answer_permissions,
    assert_history_consistent,
    final_tool_updates,
    install_apply_edit,
    never_answer_permissions,
    prompt,
    prompt_params,
    sent_messages,
    tool_results,
    update_text,
    validate_updates,
)
from tests.fakes.fake_llm import Delay, FakeLLMServer, FakeToolCall, Reply, Text, ToolCalls
from tests.lsp_client import LspClient


def options(fake: FakeLLMServer, provider: str = "ollama", **sections: Any) -> dict[str, Any]:
    return {**llm_options(fake, provider), **sections}


async def test_list_read_answer_accumulates_history(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "a.py").write_text("print('alpha')\n")
    fake_llm.script(
        Reply.tool_call("list_directory", {"path": "."}),
        Reply.tool_call("read_file", {"path": "a.py"}),
        Reply.text("a.py prints alpha."),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "What does a.py do?") == "end_turn"
    assert server.text(sid) == "a.py prints alpha."
    first, second, third = (sent_messages(fake_llm, i) for i in range(3))
    assert first[-1] == {"role": "user", "content": "What does a.py do?"}
    # Round 2 carries round 1's call and its result, in order, after the user's message.
    call = second[-2]
    assert call["role"] == "assistant" and call["tool_calls"][0]["function"]["name"] == "list_directory"
    assert second[-1]["role"] == "tool" and "a.py" in second[-1]["content"]
    assert second[:-2] == first
    assert third[:-2] == second
    assert third[-2]["tool_calls"][0]["function"] == {
        "name": "read_file",
        "arguments": {"path": "a.py"},
        "index": 0,
    } or (third[-2]["tool_calls"][0]["function"]["arguments"] == {"path": "a.py"})
    assert "print('alpha')" in third[-1]["content"]
    statuses = [(u["sessionUpdate"], u.get("status")) for u in server.updates(sid) if "toolCallId" in u]
    assert statuses == [
        ("tool_call", "pending"), ("tool_call_update", "in_progress"), ("tool_call_update", "completed"),
    ] * 2  # fmt: skip
    validate_updates(server)


async def test_write_allow_once_asks_every_time(server: LspClient, workspace: Path, fake_llm: FakeLLMServer) -> None:
    asked = answer_permissions(server, "allow_once")
    install_apply_edit(server)
    fake_llm.script(
        Reply.tool_call("write_file", {"path": "notes.md", "content": "one\n"}),
        Reply.text("written"),
        Reply.tool_call("write_file", {"path": "notes.md", "content": "two\n"}),
        Reply.text("written again"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "write one") == "end_turn"
    assert (workspace / "notes.md").read_text() == "one\n"
    assert await prompt(server, sid, "write two") == "end_turn"
    assert (workspace / "notes.md").read_text() == "two\n"
    assert len(asked) == 2
    assert asked[0]["toolCall"]["rawInput"] == {"path": "notes.md", "content": "one\n"}
    assert {o["kind"] for o in asked[0]["options"]} == {"allow_once", "allow_always", "reject_once", "reject_always"}
    validate_updates(server)


async def test_allow_always_survives_a_server_restart(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    first = await start_server(workspace, options(fake_llm))
    asked = answer_permissions(first, "allow_always")
    install_apply_edit(first)
    fake_llm.script(
        Reply.tool_call("write_file", {"path": "notes.md", "content": "one\n"}),
        Reply.text("ok"),
        Reply.tool_call("write_file", {"path": "notes.md", "content": "two\n"}),
        Reply.text("ok"),
    )
    sid = await new_session(first, workspace)
    await prompt(first, sid, "write one")
    await prompt(first, sid, "write two")
    assert len(asked) == 1, "allow_always must not ask again in the same process"
    assert (workspace / "notes.md").read_text() == "two\n"
    await first.close()

    second = await start_server(workspace, options(fake_llm))
    asked_again = answer_permissions(second, "reject_once")
    install_apply_edit(second)
    fake_llm.script(Reply.tool_call("write_file", {"path": "notes.md", "content": "three\n"}), Reply.text("ok"))
    sid2 = await new_session(second, workspace)
    assert await prompt(second, sid2, "write three") == "end_turn"
    assert asked_again == [], "the remembered decision was lost on restart"
    assert (workspace / "notes.md").read_text() == "three\n"


async def test_reject_once_tells_the_model_and_leaves_the_file(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "keep.txt").write_text("original\n")
    asked = answer_permissions(server, "reject_once")
    edits = install_apply_edit(server)
    fake_llm.script(Reply.tool_call("write_file", {"path": "keep.txt", "content": "clobbered"}), Reply.text("ok"))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "overwrite keep.txt") == "end_turn"
    assert len(asked) == 1
    assert (workspace / "keep.txt").read_text() == "original\n"
    assert edits == []
    result = tool_results(sent_messages(fake_llm, 1))[-1]
    assert "declined" in result
    assert final_tool_updates(server, sid)[-1]["status"] == "failed"


async def test_sandbox_escapes_are_refused(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    (workspace / "link.txt").symlink_to(outside)
    answer_permissions(server, "allow_once")
    edits = install_apply_edit(server)
    fake_llm.script(
        Reply(steps=[ToolCalls([
            FakeToolCall("read_file", {"path": "../outside.txt"}),
            FakeToolCall("read_file", {"path": "/etc/passwd"}),
            FakeToolCall("read_file", {"path": "link.txt"}),
            FakeToolCall("write_file", {"path": "../outside.txt", "content": "pwned"}),
            FakeToolCall("write_file", {"path": "link.txt", "content": "pwned"}),
            FakeToolCall("edit_file", {"path": "/etc/passwd", "old_text": "root", "new_text": "toor"}),
            FakeToolCall("write_file", {"path": str(tmp_path / "abs.txt"), "content": "pwned"}),
        ])]),
        Reply.text("could not"),
    )  # fmt: skip
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "escape") == "end_turn"
    results = tool_results(sent_messages(fake_llm, 1))
    assert len(results) == 7
    for text in results:
        assert text.startswith("Error:") and "outside the workspace" in text, text
        assert "secret" not in text and "root:" not in text
    assert outside.read_text() == "secret\n"
    assert edits == []
    assert not (tmp_path / "abs.txt").exists()
    assert all(u["status"] == "failed" for u in final_tool_updates(server, sid))


async def test_max_rounds_stops_with_max_turn_requests(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    client = await start_server(workspace, options(fake_llm, agent={"maxRounds": 3}))
    fake_llm.default_reply = Reply.tool_call("list_directory", {"path": "."})
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "loop forever") == "max_turn_requests"
    assert len(fake_llm.chat_requests()) == 3
    assert "agent.max_rounds" in client.text(sid) and "3 rounds" in client.text(sid)
    # The next prompt continues from a consistent history.
    fake_llm.default_reply = Reply.text("done")
    assert await prompt(client, sid, "go on") == "end_turn"
    assert_history_consistent(sent_messages(fake_llm, 3))


async def test_unknown_tool_lists_tools_and_the_model_recovers(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    fake_llm.script(
        Reply.tool_call("open_file", {"path": "a.py"}),
        Reply.tool_call("read_file", {"path": "a.py"}),
        Reply.text("x is 1"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "read a.py") == "end_turn"
    error = tool_results(sent_messages(fake_llm, 1))[-1]
    assert "unknown tool 'open_file'" in error and "read_file" in error and "write_file" in error
    assert "x = 1" in tool_results(sent_messages(fake_llm, 2))[-1]
    assert server.text(sid) == "x is 1"
    validate_updates(server)


async def test_invalid_arguments_then_repaired(server: LspClient, workspace: Path, fake_llm: FakeLLMServer) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    fake_llm.script(
        Reply.tool_call("read_file", {"file": "a.py"}),
        Reply.tool_call("read_file", {"path": "a.py", "start_line": "one"}),
        Reply.tool_call("read_file", {"path": "a.py"}),
        Reply.text("done"),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "read a.py") == "end_turn"
    missing = tool_results(sent_messages(fake_llm, 1))[-1]
    assert "invalid arguments for read_file" in missing and "path" in missing
    wrong_type = tool_results(sent_messages(fake_llm, 2))[-1]
    assert "start_line" in wrong_type and "integer" in wrong_type
    assert "x = 1" in tool_results(sent_messages(fake_llm, 3))[-1]
    statuses = [u["status"] for u in final_tool_updates(server, sid)]
    assert statuses == ["failed", "failed", "completed"]


# --- small-model robustness ---------------------------------------------------------------------------------


def _user_nudges(messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in messages if m["role"] == "user"][1:]


async def test_task_profile_reminds_a_model_that_answers_without_tools(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    client = await start_server(workspace, options(fake_llm, agent={"profile": "task"}))
    fake_llm.script(
        Reply.text("The answer is 4."),
        Reply.tool_call("task_completion", {"summary": "Computed 2+2 = 4."}),
    )
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "What is 2+2?") == "end_turn"
    assert len(fake_llm.chat_requests()) == 2
    assert "task_completion" in fake_llm.chat_requests()[0].json["messages"][0]["content"]
    nudges = _user_nudges(sent_messages(fake_llm, 1))
    assert len(nudges) == 1 and "task_completion" in nudges[0]
    assert "Computed 2+2 = 4." in client.text(sid)


async def test_announced_action_gets_exactly_one_continuation_nudge(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.script(Reply.text("I will now read the file."), Reply.text("I will now read the file."))
    fake_llm.default_reply = Reply.text("unexpected extra call")
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "look at a.py") == "end_turn"
    assert len(fake_llm.chat_requests()) == 2
    nudges = _user_nudges(sent_messages(fake_llm, 1))
    assert len(nudges) == 1 and "Continue now" in nudges[0]
    assert "Continue now" in server.text(sid, "agent_thought_chunk")


async def test_deflection_gets_firmer_instructions_capped_at_three(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.default_reply = Reply.text("I can't access files on your system.")
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "what is in a.py?") == "end_turn"
    assert len(fake_llm.chat_requests()) == 4  # the first answer plus 3 retries
    nudges = _user_nudges(sent_messages(fake_llm, 3))
    assert len(nudges) == 3
    assert all("You DO have access" in n and "read_file" in n for n in nudges)


async def test_two_empty_answers_force_a_summary_without_tools(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.script(Reply.text(""), Reply.text(""), Reply.text("Summary: nothing was done yet."))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "do it") == "end_turn"
    requests = fake_llm.chat_requests()
    assert len(requests) == 3
    assert requests[0].json.get("tools") and requests[1].json.get("tools")
    assert not requests[2].json.get("tools"), "the summary call must not offer tools"
    assert "summary" in requests[2].json["messages"][-1]["content"]
    assert server.text(sid) == "Summary: nothing was done yet."


@pytest.mark.parametrize("style", ["openai-fragments", "openai-late-name", "ollama", "text"])
async def test_tool_call_shapes_reach_the_tool_layer_identically(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, style: str
) -> None:
    (workspace / "a.py").write_text("value = 42\n")
    args = {"path": "a.py", "start_line": 1}
    if style.startswith("openai"):
        provider = "openai"
        shape = "late_name" if style == "openai-late-name" else "fragments"
        call = Reply(steps=[ToolCalls([FakeToolCall("read_file", args)], style=shape, fragments=5)])  # type: ignore[arg-type]
    elif style == "ollama":
        provider = "ollama"
        call = Reply(steps=[ToolCalls([FakeToolCall("read_file", args)])])
    else:
        provider = "ollama"
        body = json.dumps({"name": "read_file", "arguments": args})
        call = Reply.text(f"Let me look.\n<tool_call>\n{body}\n</tool_call>", pieces=4)
    client = await start_server(workspace, options(fake_llm, provider))
    fake_llm.script(call, Reply.text("42"))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "value?") == "end_turn"
    starts = [u for u in client.updates(sid) if u["sessionUpdate"] == "tool_call"]
    assert len(starts) == 1 and starts[0]["rawInput"] == args and starts[0]["title"] == "Read a.py:1-"
    result = tool_results(sent_messages(fake_llm, 1))
    assert len(result) == 1 and "value = 42" in result[0]
    assert_history_consistent(sent_messages(fake_llm, 1))
    validate_updates(client)


# --- cancellation ---------------------------------------------------------------------------------------------


async def _cancel(client: LspClient, sid: str, fut: asyncio.Future[Any]) -> float:
    sent = time.perf_counter()
    client.notify("agent/session/cancel", {"sessionId": sid})
    result = await asyncio.wait_for(fut, 10)
    assert result == {"stopReason": "cancelled"}
    return time.perf_counter() - sent


async def test_cancel_during_a_stream_keeps_history_consistent(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    steps: list[Any] = [Text("reading... ")] + [s for i in range(100) for s in (Text(f"w{i} "), Delay(0.05))]
    fake_llm.script(Reply.tool_call("read_file", {"path": "a.py"}), Reply(steps=steps))
    sid = await new_session(server, workspace)
    _, fut = server.request_nowait("agent/session/prompt", prompt_params(sid, "read"))
    await server.wait_for(lambda: "w1 " in server.text(sid))
    assert await _cancel(server, sid, fut) < 1.0
    fake_llm.script(Reply.text("back"))
    assert await prompt(server, sid, "again") == "end_turn"
    messages = sent_messages(fake_llm, 2)
    assert_history_consistent(messages)
    assert messages[-1] == {"role": "user", "content": "again"}
    # The partial answer the user saw stays in the history.
    assert any(m["role"] == "assistant" and "reading..." in m["content"] for m in messages)


async def test_cancel_during_a_command_kills_its_process_group(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    client = await start_server(workspace, options(fake_llm, tools={"policy": {"run_command": "allow"}}))
    command = "echo $$ > pgid.txt; sh -c 'sleep 30 & sleep 30'"
    fake_llm.script(Reply.tool_call("run_command", {"command": command}))
    sid = await new_session(client, workspace)
    _, fut = client.request_nowait("agent/session/prompt", prompt_params(sid, "sleep"))
    await client.wait_for(
        lambda: any(u.get("status") == "in_progress" for u in client.updates(sid)) and (workspace / "pgid.txt").exists()
    )
    pgid = int((workspace / "pgid.txt").read_text().split()[0])
    await _wait_for_members(pgid, 3)
    elapsed = await _cancel(client, sid, fut)
    assert elapsed < ANSWERED_MEANWHILE_S, f"cancel took {elapsed:.3f}s"
    for _ in range(60):  # polling /proc: the group's end has no event to wait on
        if not _group_members(pgid):
            break
        await asyncio.sleep(0.05)
    assert _group_members(pgid) == [], "processes of the command survived the cancel"
    fake_llm.script(Reply.text("ok"))
    assert await prompt(client, sid, "next") == "end_turn"
    messages = sent_messages(fake_llm, 1)
    assert_history_consistent(messages)
    assert "cancelled" in tool_results(messages)[-1]


def _group_members(pgid: int) -> list[int]:
    """Live (non-zombie) processes whose process group is `pgid`."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry))
    return members


async def _wait_for_members(pgid: int, n: int) -> None:
    for _ in range(250):
        if len(_group_members(pgid)) >= n:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the command group has {_group_members(pgid)}")


async def test_cancel_during_a_pending_permission_prompt(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    asked = never_answer_permissions(server)
    fake_llm.script(Reply.tool_call("write_file", {"path": "n.md", "content": "x"}))
    sid = await new_session(server, workspace)
    _, fut = server.request_nowait("agent/session/prompt", prompt_params(sid, "write"))
    await server.wait_for(lambda: bool(asked))
    assert await _cancel(server, sid, fut) < 1.0
    assert not (workspace / "n.md").exists()
    fake_llm.script(Reply.text("ok"))
    assert await prompt(server, sid, "next") == "end_turn"
    messages = sent_messages(fake_llm, 1)
    assert_history_consistent(messages)
    validate_updates(server)


# --- loop-control and editing tools -----------------------------------------------------------------------


async def test_update_plan_sends_a_plan_update(server: LspClient, workspace: Path, fake_llm: FakeLLMServer) -> None:
    entries = [
        {"content": "Read the code", "priority": "high", "status": "completed"},
        {"content": "Fix the bug", "priority": "medium", "status": "in_progress"},
    ]
    fake_llm.script(Reply.tool_call("update_plan", {"entries": entries}), Reply.text("planned"))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "plan") == "end_turn"
    plans = [u for u in server.updates(sid) if u["sessionUpdate"] == "plan"]
    assert plans == [{"sessionUpdate": "plan", "entries": entries}]
    validate_updates(server)


async def test_ask_question_ends_the_turn_showing_the_question(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.script(Reply.tool_call("ask_question", {"question": "Which file?", "options": ["a.py", "b.py"]}))
    fake_llm.default_reply = Reply.text("should not be asked")
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "fix it") == "end_turn"
    assert len(fake_llm.chat_requests()) == 1
    assert "Which file?" in server.text(sid) and "a.py" in server.text(sid)
    # The answer comes as the next message, after the question's tool result.
    fake_llm.script(Reply.text("ok, a.py"))
    await prompt(server, sid, "a.py")
    messages = sent_messages(fake_llm, 1)
    assert_history_consistent(messages)
    assert messages[-1] == {"role": "user", "content": "a.py"}


async def test_edit_file_through_apply_edit_shows_a_diff(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    client = await start_server(workspace, options(fake_llm, tools={"policy": {"edit_file": "allow"}}))
    edits = install_apply_edit(client)
    target = workspace / "m.py"
    target.write_text("def f():\n    return 1\n\nprint(f())\n")
    fake_llm.script(
        Reply.tool_call("edit_file", {"path": "m.py", "old_text": "    return 1", "new_text": "    return 2  # é"}),
        Reply.text("edited"),
    )
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "return 2") == "end_turn"
    assert len(edits) == 1
    assert target.read_text() == "def f():\n    return 2  # é\n\nprint(f())\n"
    done = final_tool_updates(client, sid)[-1]
    assert done["status"] == "completed"
    diffs = [c for c in done["content"] if c["type"] == "diff"]
    assert diffs == [
        {
            "type": "diff",
            "path": str(target.resolve()),
            "oldText": "def f():\n    return 1\n\nprint(f())\n",
            "newText": "def f():\n    return 2  # é\n\nprint(f())\n",
        }
    ]
    assert "Edited m.py" in update_text(done)
    validate_updates(client)


async def test_remembered_approvals_can_be_listed_and_revoked(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    server = await start_server(workspace, options(fake_llm))
    asked = answer_permissions(server, "allow_always")
    fake_llm.script(Reply.tool_call("run_command", {"command": "echo hi"}), Reply.text("ok"))
    sid = await new_session(server, workspace)
    await prompt(server, sid, "say hi")
    listed = (await server.request("agent/_permissions/list", {"cwd": str(workspace)}))["decisions"]
    assert [(d["tool"], d["pattern"], d["allow"]) for d in listed] == [("run_command", "echo *", True)]
    assert (await server.request("agent/_permissions/revoke", {"id": listed[0]["id"]})) == {"revoked": True}
    assert (await server.request("agent/_permissions/list", {"cwd": str(workspace)}))["decisions"] == []
    fake_llm.script(Reply.tool_call("run_command", {"command": "echo again"}), Reply.text("ok"))
    await prompt(server, sid, "again")
    assert len(asked) == 2, "after revoking, the command must ask again"
