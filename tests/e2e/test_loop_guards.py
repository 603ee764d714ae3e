"""Loops of small models end early and visibly; dropped native tools switch the model to prompt-based tools.

The real server process over stdio, the fake LLM on loopback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import assert_history_consistent, prompt, sent_messages, tool_results, validate_updates
from tests.fakes.fake_llm import Delay, FakeLLMServer, FakeUsage, Reply, Text
from tests.lsp_client import LspClient


def notes(client: LspClient, sid: str) -> str:
    return client.text(sid)


async def test_a_looping_answer_is_cut_early_with_a_note_and_a_stop_reason(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    loop: list[Any] = [s for i in range(4000) for s in ([Text("the ")] + ([Delay(0.01)] if i % 20 == 0 else []))]
    fake_llm.script(Reply(steps=[Text("The answer is "), *loop], coalesce=8))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "what is it?") == "max_tokens"
    shown = server.text(sid)
    assert "Stopped early" in shown and "“the”" in shown
    # The stream was closed long before its end: the server saw the client hang up.
    request = fake_llm.chat_requests()[0]
    assert request.wait_done(5) and request.disconnected
    assert shown.count("the ") < 1000
    # The next request does not show the model its own loop.
    fake_llm.script(Reply.text("ok"))
    assert await prompt(server, sid, "again") == "end_turn"
    looped = [m for m in sent_messages(fake_llm, 1) if m["role"] == "assistant"][-1]
    assert looped["content"].startswith("The answer is the") and len(looped["content"]) < 40
    validate_updates(server)


async def test_a_looping_thought_is_cut_too(server: LspClient, workspace: Path, fake_llm: FakeLLMServer) -> None:
    from tests.fakes.fake_llm import Thinking

    fake_llm.script(Reply(steps=[Thinking("Let me think. ")] + [Thinking("Wait, let me check again. ")] * 800))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "think") == "max_tokens"
    assert "Stopped early" in server.text(sid)


async def test_a_long_real_answer_with_tables_and_logs_is_not_cut(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    from tests.turn.guards.real_answers import ANSWERS

    answer = "\n\n".join(ANSWERS[k] for k in ("markdown_table", "repeated_log_lines", "python_code", "sql_inserts"))
    fake_llm.script(Reply.text(answer, pieces=len(answer) // 4, coalesce=16))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "explain") == "end_turn"
    assert server.text(sid) == answer


async def test_the_same_call_three_times_gets_a_nudge_and_the_fourth_ends_the_turn(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    fake_llm.script(*[Reply.tool_call("read_file", {"path": "a.py"}) for _ in range(6)])
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "read a.py") == "max_turn_requests"
    # Four model calls, far from agent.max_rounds: the fourth identical call ended the turn.
    assert len(fake_llm.chat_requests()) == 4
    fourth = sent_messages(fake_llm, 3)
    assert fourth[-1]["role"] == "user" and "3 times in a row" in fourth[-1]["content"]
    assert "a.py" in fourth[-1]["content"]
    assert "kept making the same tool call" in server.text(sid)
    # Every recorded call has a result; the last one says it did not run.
    fake_llm.script(Reply.text("done"))
    assert await prompt(server, sid, "ok") == "end_turn"
    history = sent_messages(fake_llm, 4)
    assert_history_consistent(history)
    assert tool_results(history)[-1].startswith("Not run")
    # The file went to the model once; the same read of the unchanged file then got a pointer to that result.
    assert sum("x = 1" in r for r in tool_results(history)) == 1
    assert sum(r.startswith("Unchanged: you made this same call") for r in tool_results(history)) == 2


async def test_different_calls_are_not_a_loop(server: LspClient, workspace: Path, fake_llm: FakeLLMServer) -> None:
    for i in range(5):
        (workspace / f"f{i}.py").write_text(f"v = {i}\n")
    fake_llm.script(*[Reply.tool_call("read_file", {"path": f"f{i}.py"}) for i in range(5)], Reply.text("read all"))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "read them") == "end_turn"
    assert server.text(sid) == "read all"


def openai_options(fake: FakeLLMServer, **extra: Any) -> dict[str, Any]:
    return llm_options(fake, "openai", **extra)


async def test_dropped_tools_switch_the_model_to_prompt_tools_once_and_it_is_remembered(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    # The template leaves the tools out: the server reports a prompt smaller than the tool definitions alone.
    fake_llm.script(
        Reply.text("I cannot read files.", drops_tools=True),
        Reply.text('<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}\n</tool_call>'),
        Reply.text("a.py sets x."),
    )
    client = await start_server(workspace, openai_options(fake_llm))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "what does a.py do?") == "end_turn"
    assert len(fake_llm.chat_requests()) == 3, client.text(sid)
    first, second, third = (fake_llm.chat_requests()[i].json for i in range(3))
    assert first.get("tools")
    assert "tools" not in second and "<tool_call>" in second["messages"][0]["content"]
    assert "x = 1" in third["messages"][-1]["content"]  # the call written as text ran
    shown = client.text(sid)
    assert shown.count("dropped them") == 1 and "prompt-based tools" in shown
    assert shown.endswith("a.py sets x.")
    # The answer given without tools is not in the history.
    assert all("cannot read" not in str(m.get("content")) for m in third["messages"])
    await client.close()

    # A new process on the same store starts in prompt mode at once.
    fake_llm.script(Reply.text("hello"))
    again = await start_server(workspace, openai_options(fake_llm))
    sid2 = await new_session(again, workspace)
    assert await prompt(again, sid2, "hi") == "end_turn"
    assert "tools" not in fake_llm.chat_requests()[-1].json
    assert "dropped" not in again.text(sid2)


async def test_tools_that_reach_the_prompt_stay_native(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.script(Reply.text("hi"), Reply.text("hi again", usage=FakeUsage(prompt_tokens=30)))
    client = await start_server(workspace, openai_options(fake_llm))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "hi") == "end_turn"
    assert fake_llm.chat_requests()[0].json.get("tools")
    assert len(fake_llm.chat_requests()) == 1 and client.text(sid) == "hi"


async def test_forced_native_mode_is_kept_even_when_tools_are_dropped(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.script(Reply.text("no tools seen", drops_tools=True))
    client = await start_server(workspace, openai_options(fake_llm, toolMode="native"))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "hi") == "end_turn"
    assert len(fake_llm.chat_requests()) == 1 and client.text(sid) == "no tools seen"
