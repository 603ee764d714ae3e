"""The small-model features can each be switched off (the scorecard's ablation measures them that way).

Each test runs the same scripted answer with the feature on and off through the real server and checks the
difference a user would see: a text tool call that runs or stays text, a looping answer cut or left to the end,
a small window offered a few tools or all of them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import prompt, sent_messages
from tests.fakes.fake_llm import FakeLLMServer, Reply


def options(fake: FakeLLMServer, **agent: Any) -> dict[str, Any]:
    return {**llm_options(fake), "agent": agent} if agent else llm_options(fake)


@pytest.mark.parametrize("recover", [True, False])
async def test_text_tool_calls_run_only_when_recovery_is_on(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, recover: bool
) -> None:
    (workspace / "a.py").write_text("value = 42\n")
    body = json.dumps({"name": "read_file", "arguments": {"path": "a.py"}})
    fake_llm.script(Reply.text(f"<tool_call>\n{body}\n</tool_call>"), Reply.text("It is 42."))
    client = await start_server(workspace, options(fake_llm, recoverTextToolCalls=recover))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "What is value?") == "end_turn"
    cards = [u for u in client.updates(sid) if u["sessionUpdate"] == "tool_call"]
    if recover:
        assert [c["title"] for c in cards] == ["Read a.py"]
        assert "value = 42" in str(sent_messages(fake_llm, 1))
    else:
        assert cards == [] and len(fake_llm.chat_requests()) == 1
        assert "read_file" in client.text(sid)  # the call stays what the model wrote: text


@pytest.mark.parametrize("guard", [True, False])
async def test_a_looping_answer_is_cut_only_with_the_repetition_guard(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, guard: bool
) -> None:
    fake_llm.script(Reply.text("The answer is " + "again and again " * 400, pieces=200))
    client = await start_server(workspace, options(fake_llm, repetitionGuard=guard))
    sid = await new_session(client, workspace)
    stop = await prompt(client, sid, "Explain.")
    shown = client.text(sid)
    if guard:
        assert stop == "max_tokens" and shown.count("again and again") < 100
    else:
        assert stop == "end_turn" and shown.count("again and again") == 400


@pytest.mark.parametrize("reduced", [True, False])
async def test_a_small_window_gets_few_tools_only_with_reduced_tools(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, reduced: bool
) -> None:
    fake_llm.models[0].context_length = 4096
    fake_llm.script(Reply.text("Hello."))
    # (the lean prompt off: it has its own small tool set, measured in its own tests)
    client = await start_server(workspace, options(fake_llm, reducedTools=reduced, leanPrompt="off"))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Say hello.") == "end_turn"
    tools = fake_llm.chat_requests()[0].json.get("tools") or []
    if reduced:
        assert 0 < len(tools) <= 6
    else:
        assert len(tools) >= 11
