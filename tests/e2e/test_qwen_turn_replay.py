"""The real_llm lane's multi-round turn (read -> approved edit -> pytest, native tools) replayed through the real
server: Qwen2.5-Coder-0.5B's recorded answers (tests/fakes/recorded/qwen_turn_*.sse, by
tests/fakes/record_qwen_turn.py through llama.cpp's own template) fed back in order by the fake LLM.

The class of defect: the model answers with its whole plan of calls (read, edit, run the tests) in one answer and
then sends the same answer again and again. No call was ever twice in a row, so the repeated-call guard never saw
it, and every round sent calc.py whole once more: 10 rounds, 17 reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.conftest import Start, llm_options, new_session
from tests.e2e.helpers import (
    answer_permissions,
    assert_history_consistent,
    install_apply_edit,
    prompt,
    sent_messages,
    tool_results,
    validate_updates,
)
from tests.fakes import recorded
from tests.fakes.fake_llm import FakeLLMServer, Reply

CALC = "def add(a, b):\n    return a - b\n"
TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
PROMPT = (
    'Make these tool calls one after the other, each once, then answer "done":\n'
    '1. read_file {"path": "calc.py"}\n'
    '2. edit_file {"path": "calc.py", "old_text": "return a - b", "new_text": "return a + b"}\n'
    '3. run_command {"command": "python -m pytest -q test_calc.py"}'
)
OPTIONS = {"agent": {"maxRounds": 10, "editFormat": "tools"}}


def _workspace(workspace: Path) -> None:
    (workspace / "calc.py").write_text(CALC)
    (workspace / "test_calc.py").write_text(TEST_CALC)


def _replies(name: str) -> list[Reply]:
    """The recorded answers of one real turn, in order."""
    files = sorted(recorded.DIR.glob(f"{name}_*.sse"), key=lambda p: int(p.stem.rsplit("_", 1)[1]))
    assert files, name
    return [recorded.stream_reply(f.name) for f in files]


def _cards(client: Any, sid: str) -> list[str]:
    kinds = {u["toolCallId"]: u.get("kind", "") for u in client.updates(sid) if u["sessionUpdate"] == "tool_call"}
    return [
        kinds.get(u["toolCallId"], "")
        for u in client.updates(sid)
        if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "completed"
    ]


async def test_the_same_answer_of_calls_again_and_again_is_nudged_then_stopped(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    """As the lane ran before its client applied edits: the editor refused every edit, the model re-sent its three
    calls. Now: the second identical answer runs and is nudged, the third ends the turn; 3 model calls, not 10."""
    _workspace(workspace)
    replies = _replies("qwen_turn_refused")
    fake_llm.script(*replies)
    fake_llm.default_reply = replies[-1]  # the model's answer, should it be asked again
    client = await start_server(workspace, {**llm_options(fake_llm, "openai"), **OPTIONS})
    answer_permissions(client, "allow_once")  # approved, and the editor (the default test client) refuses
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, PROMPT) == "max_turn_requests"
    assert len(fake_llm.chat_requests()) == 3
    third = sent_messages(fake_llm, 2)
    nudge = third[-1]
    assert nudge["role"] == "user" and "same 3 tool calls" in nudge["content"], nudge
    assert "read_file" in nudge["content"] and "run_command" in nudge["content"]
    results = tool_results(third)
    assert "tell the user the editor did not apply it" in results[1]
    # The second read of the unchanged file points to the first instead of sending it again.
    assert sum("return a - b" in r for r in results) == 1, results
    assert any(r.startswith("Unchanged: you made this same call") and "round 1" in r for r in results), results
    assert "kept making the same tool calls" in client.text(sid)
    assert (workspace / "calc.py").read_text() == CALC
    fake_llm.script(Reply.text("ok"))
    assert await prompt(client, sid, "ok") == "end_turn"
    assert_history_consistent(sent_messages(fake_llm, 3))
    validate_updates(client)


async def test_read_edit_and_test_run_in_order_with_an_editor_that_applies_edits(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    """The lane's turn as it now runs: read, the approved edit lands, pytest passes; what the model does after
    that ends the turn either way (its answer, or the cycle guard) long before the round limit."""
    _workspace(workspace)
    replies = _replies("qwen_turn_applied")
    fake_llm.script(*replies)
    fake_llm.default_reply = replies[-1]
    client = await start_server(workspace, {**llm_options(fake_llm, "openai"), **OPTIONS})
    asked = answer_permissions(client, "allow_once")
    install_apply_edit(client)
    sid = await new_session(client, workspace)
    assert await prompt(client, sid, PROMPT) in ("end_turn", "max_turn_requests")
    assert len(fake_llm.chat_requests()) <= 3
    assert _cards(client, sid)[:3] == ["read", "edit", "execute"]
    assert {p["toolCall"].get("kind") for p in asked} >= {"edit", "execute"}
    assert "a + b" in (workspace / "calc.py").read_text()
    results = tool_results(sent_messages(fake_llm, 1))
    assert "1 passed" in results[2], results
    validate_updates(client)
