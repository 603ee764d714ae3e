"""Real-model defect classes (issue 25), end to end with the fake LLM: calls written as text, calls of names that are
not tools, answers that never looked at the file the request names. The replies are the shapes Qwen2.5-Coder-0.5B
really produced through llama.cpp (tests/fakes/recorded/qwen_*.sse hold the recorded streams)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import prompt, sent_messages, tool_results, validate_updates
from tests.fakes import recorded
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.lsp_client import LspClient

CALC = "def add(a, b):\n    return a - b\n"


def _chats(fake: FakeLLMServer) -> list[Any]:
    return [r for r in fake.requests if r.path.endswith(("/api/chat", "/chat/completions"))]


def _calls(server: LspClient, sid: str) -> list[str]:
    return [u.get("title", "") for u in server.updates(sid) if u["sessionUpdate"] == "tool_call"]


async def test_a_call_written_as_text_shows_as_a_tool_card_never_as_prose(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "calc.py").write_text(CALC)
    call = json.dumps({"name": "read_file", "arguments": {"path": "calc.py"}}, indent=2)
    fake_llm.script(
        Reply.text(f"```json\n{call}\n```", pieces=12),  # streamed in small pieces, as a model does
        Reply.text("Let me look.\n" + json.dumps({"name": "read_file", "arguments": {"path": "calc.py"}}), pieces=9),
        Reply.text("add returns a - b, which is a bug.", pieces=3),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "Read calc.py and tell me what the add function does.") == "end_turn"
    shown = server.text(sid)
    assert '"name"' not in shown and "```" not in shown and "read_file" not in shown
    assert shown == "Let me look.\nadd returns a - b, which is a bug."
    assert len(_calls(server, sid)) == 2  # both recovered calls are cards
    assert "return a - b" in tool_results(sent_messages(fake_llm, 1))[-1]
    validate_updates(server)


async def test_a_call_of_a_name_that_is_not_a_tool_gets_a_nudge_listing_the_tools(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "calc.py").write_text(CALC)
    fake_llm.script(
        Reply.text('{"name": "calc.py", "arguments": {"a": 2, "b": 3}}', pieces=5),
        Reply.tool_call("read_file", {"path": "calc.py"}),
        Reply.text("It subtracts."),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "Fix the bug in calc.py: add(2, 3) should return 5.") == "end_turn"
    nudge = sent_messages(fake_llm, 1)[-1]
    assert nudge["role"] == "user" and "`calc.py` is not a tool" in nudge["content"]
    assert "read_file" in nudge["content"] and "edit_file" in nudge["content"]
    assert server.text(sid) == "It subtracts."  # the pseudo-call never became the answer


async def test_the_same_call_of_a_non_tool_again_and_again_ends_the_turn(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.default_reply = Reply.text('{"name": "add", "arguments": {"a": 2, "b": 3}}')
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "What does add do?") == "max_turn_requests"
    assert len(_chats(fake_llm)) == 4  # nudged twice, nudged at the third like any repeat, stopped at the fourth
    assert "`add`, which is not a tool" in server.text(sid)
    assert '"arguments"' not in server.text(sid)


async def test_an_answer_that_never_read_the_named_file_is_nudged_to_read_it(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "calc.py").write_text(CALC)
    fake_llm.script(
        Reply.text("To see what add does, open calc.py in a text editor and look for the add function."),
        Reply.tool_call("read_file", {"path": "calc.py"}),
        Reply.text("add(a, b) returns a - b."),
    )
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "Read calc.py and tell me what the add function does.") == "end_turn"
    nudge = sent_messages(fake_llm, 1)[-1]
    assert nudge["role"] == "user" and "without reading it" in nudge["content"] and '"calc.py"' in nudge["content"]
    assert "returns a - b" in server.text(sid)


async def test_a_request_naming_no_workspace_file_is_answered_directly(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    fake_llm.script(Reply.text("A list is an ordered, mutable sequence; see list.py in CPython for details."))
    sid = await new_session(server, workspace)
    assert await prompt(server, sid, "What is a Python list? Is it like array.py in numpy?") == "end_turn"
    assert len(_chats(fake_llm)) == 1


async def test_after_a_nudge_to_look_an_openai_compatible_server_is_asked_for_a_tool_call(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    (workspace / "calc.py").write_text(CALC)
    fake_llm.script(
        Reply.text("Open calc.py in your editor to see add."),
        Reply.tool_call("read_file", {"path": "calc.py"}),
        Reply.text("add(a, b) returns a - b."),
    )
    client = await start_server(workspace, llm_options(fake_llm, "openai"))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Read calc.py and tell me what the add function does.") == "end_turn"
    first, second, third = (r.json for r in _chats(fake_llm))
    assert "tool_choice" not in first
    assert second["tool_choice"] == "required"  # llama.cpp then constrains the reply to a call of a real tool
    assert "tool_choice" not in third


# Streams recorded from Qwen2.5-Coder-0.5B through llama.cpp (tests/fakes/record_qwen.py), replayed byte for byte.


async def test_recorded_qwen_fenced_call_becomes_a_tool_card(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    """The model's real answer to "Read calc.py and tell me what the add function does.": a ```json fenced call
    (finish_reason stop, no native tool_calls), with the recorder's absolute path."""
    (workspace / "calc.py").write_text(CALC)
    fake_llm.script(recorded.stream_reply("qwen_read_calc.sse"), Reply.text("add subtracts."))
    client = await start_server(workspace, llm_options(fake_llm, "openai"))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Read calc.py and tell me what the add function does.") == "end_turn"
    assert client.text(sid) == "add subtracts."  # no JSON, no fence: the call is a card
    assert len(_calls(client, sid)) == 1
    second = sent_messages(fake_llm, 1)
    assert second[-2]["tool_calls"][0]["function"]["name"] == "read_file"


async def test_recorded_qwen_call_of_a_file_name_is_nudged(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    """The model's real answer to "Fix the bug in calc.py…": `{"name": "calc.py", "arguments": {...}}`."""
    (workspace / "calc.py").write_text(CALC)
    fake_llm.script(
        recorded.stream_reply("qwen_fix_calc.sse"),
        Reply.tool_call("read_file", {"path": "calc.py"}),
        Reply.text("It subtracts; it should add."),
    )
    client = await start_server(workspace, llm_options(fake_llm, "openai"))
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, "Fix the bug in calc.py: add(2, 3) should return 5.") == "end_turn"
    nudge = sent_messages(fake_llm, 1)[-1]
    assert "`calc.py` is not a tool" in nudge["content"]
    assert _chats(fake_llm)[1].json["tool_choice"] == "required"
    assert client.text(sid) == "It subtracts; it should add."


async def test_a_file_attached_to_the_request_counts_as_looked_at(
    server: LspClient, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    """An @-mention or a selection puts the file's text in the request: answering from it is not a deflection."""
    (workspace / "calc.py").write_text(CALC)
    fake_llm.script(Reply.text("add returns the difference, a - b."))
    sid = await new_session(server, workspace)
    attached = {"type": "resource", "resource": {"uri": (workspace / "calc.py").as_uri(), "text": CALC}}
    params = {"sessionId": sid, "prompt": [{"type": "text", "text": "What does add in calc.py do?"}, attached]}
    assert await server.request("agent/session/prompt", params, timeout=60) == {"stopReason": "end_turn"}
    assert len(_chats(fake_llm)) == 1  # no "read it first" nudge
