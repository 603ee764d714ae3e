"""The real_llm lane's multi-round turn (read -> approved edit -> pytest, native tools) replayed through the real
server: Qwen2.5-Coder-0.5B's recorded answers (tests/fakes/recorded/qwen_turn_*.sse, by
tests/fakes/record_qwen_turn.py through llama.cpp's own template) fed back in order by the fake LLM.

The class of defect: the model answers with its whole plan of calls (read, edit, run the tests) in one answer and
then sends the same answer again and again. No call was ever twice in a row, so the repeated-call guard never saw
it, and every round sent calc.py whole once more: 10 rounds, 17 reads.
"""

from __future__ import annotations

from pathlib import Path

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
from tests.lsp_client import LspClient

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


def _cards(client: LspClient, sid: str) -> list[str]:
    kinds = {u["toolCallId"]: u.get("kind", "") for u in client.updates(sid) if u["sessionUpdate"] == "tool_call"}
    return [
        kinds.get(u["toolCallId"], "")
        for u in client.updates(sid)
        if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "completed"
    ]


async def _run(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer, *replies: Reply, apply: bool
) -> tuple[LspClient, str, str]:
    _workspace(workspace)
    fake_llm.script(*replies)
    fake_llm.default_reply = replies[-1]  # the model's answer, should it be asked again
    client = await start_server(workspace, {**llm_options(fake_llm, "openai"), **OPTIONS})
    answer_permissions(client, "allow_once")
    if apply:
        install_apply_edit(client)  # else the default test client answers applyEdit with null: refused
    sid = await new_session(client, workspace)
    return client, sid, await prompt(client, sid, PROMPT)


async def test_the_lanes_loop_the_same_three_calls_every_round_ends_at_the_third(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    """The lane's failure as it was: the editor refused the edit, and the model sent the same answer (read, edit,
    run the tests) every round, 10 rounds. Now the second time runs (its read of the unchanged file gets a pointer
    to the first) and is nudged, and the third ends the turn: 3 model calls."""
    first = _replies("qwen_turn_applied")[0]  # the real answer: read, edit, run in one ```json block
    client, sid, reason = await _run(start_server, workspace, fake_llm, first, first, first, apply=False)
    assert reason == "max_turn_requests"
    assert len(fake_llm.chat_requests()) == 3
    third = sent_messages(fake_llm, 2)
    nudge = third[-1]
    assert nudge["role"] == "user" and "same 3 tool calls" in nudge["content"], nudge
    results = tool_results(third)
    assert "tell the user the editor did not apply it" in results[1], results
    assert sum("return a - b" in r for r in results) == 1, results  # calc.py went to the model once
    assert results[3].startswith("Unchanged: you made this same call") and "round 1" in results[3], results
    assert "kept making the same tool calls" in client.text(sid)
    assert (workspace / "calc.py").read_text() == CALC
    fake_llm.script(Reply.text("ok"))
    assert await prompt(client, sid, "ok") == "end_turn"
    assert_history_consistent(sent_messages(fake_llm, 3))
    validate_updates(client)


async def test_recorded_refused_edit_then_edit_and_run_again_is_a_cycle_too(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    """Recorded with the refusing editor: read, edit, run; then edit, run; then edit, run again."""
    client, sid, reason = await _run(start_server, workspace, fake_llm, *_replies("qwen_turn_refused"), apply=False)
    assert reason == "max_turn_requests"
    assert len(fake_llm.chat_requests()) == 3
    assert "same 2 tool calls" in sent_messages(fake_llm, 2)[-1]["content"]
    assert "kept making the same tool calls" in client.text(sid)
    fake_llm.script(Reply.text("ok"))
    assert await prompt(client, sid, "ok") == "end_turn"
    results = tool_results(sent_messages(fake_llm, 3))
    assert sum(r.startswith("Exit code") for r in results) == 2  # the tests ran twice, not a third time
    assert sum(r.startswith("Not run") for r in results) == 2  # the third answer's two calls
    validate_updates(client)


async def test_recorded_read_edit_and_test_run_with_an_editor_that_applies_edits(
    start_server: Start, workspace: Path, fake_llm: FakeLLMServer
) -> None:
    """The lane's turn as it now runs: read, the approved edit lands, pytest passes. The model then sent the same
    three calls again: the edit, already made, is not reported as made again, the cycle is nudged, then stopped."""
    client, sid, reason = await _run(start_server, workspace, fake_llm, *_replies("qwen_turn_applied"), apply=True)
    assert reason == "max_turn_requests"
    assert len(fake_llm.chat_requests()) == 3
    assert _cards(client, sid)[:3] == ["read", "edit", "execute"]
    assert "a + b" in (workspace / "calc.py").read_text()
    first, second = tool_results(sent_messages(fake_llm, 1)), tool_results(sent_messages(fake_llm, 2))[3:]
    assert "1 passed" in first[2], first
    assert "return a + b" in second[0]  # the file changed since: read again whole
    assert "already has this change" in second[1], second
    validate_updates(client)
