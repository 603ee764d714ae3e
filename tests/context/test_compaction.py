"""Compaction: summaries, fallback when the summarizer fails or hangs, eviction into a session summary."""

from __future__ import annotations

import asyncio
import random

import pytest

from agent_server.config import ContextConfig
from agent_server.context import (
    compact,
    estimate_messages,
    estimate_tools,
    pair_problems,
    prune_tool_results,
    with_summary,
)
from agent_server.context.compaction import protected_start
from agent_server.llm.base import ToolSpec
from agent_server.messages import Message, ToolCall
from agent_server.tools.builtin import builtin_tools
from agent_server.tools.kinds import call_roles

SYSTEM = Message("system", "You are a coding agent. Be precise.")
CFG = ContextConfig()
ROLES = call_roles(builtin_tools())  # what the turn passes: what the built-in tools' calls mean to the notes


def _turn(t: int, body: int = 1500) -> list[Message]:
    """One user turn with a file read, a command, an edit and a final answer."""
    return [
        Message("user", f"Task {t}: please look into module {t} and fix what is broken. " + "details " * 30),
        Message(
            "assistant",
            f"Reading module {t}.",
            thinking="I should read it first. " * 20,
            tool_calls=[ToolCall(f"r{t}", "read_file", {"path": f"src/mod{t}.py"})],
        ),
        Message("tool", f"def f{t}():\n" + "    pass\n" * (body // 9), tool_call_id=f"r{t}", tool_name="read_file"),
        Message("assistant", "", tool_calls=[ToolCall(f"c{t}", "run_command", {"command": f"pytest tests/t{t}.py"})]),
        Message(
            "tool",
            "collected 3 items\n"
            + "noise line\n" * 60
            + f"FAILED tests/t{t}.py::test_x - AssertionError\nexit code: 1",
            tool_call_id=f"c{t}",
            tool_name="run_command",
        ),
        Message(
            "assistant",
            "",
            tool_calls=[
                ToolCall(f"e{t}", "edit_file", {"path": f"src/mod{t}.py", "old_text": "a", "new_text": "b" * 600})
            ],
        ),
        Message("tool", "edited", tool_call_id=f"e{t}", tool_name="edit_file"),
        Message("assistant", f"Fixed module {t}: the loop bound was off by one. " + "Explanation. " * 100),
    ]


def _history(turns: int) -> list[Message]:
    out = [SYSTEM]
    for t in range(turns):
        out += _turn(t)
    return out


def _last_pairs(messages: list[Message], pairs: int = 5) -> list[Message]:
    body = [m for m in messages if m.role != "system"]
    return body[protected_start(body, pairs) :]


async def _short(text: str, target: int) -> str:
    return " ".join(text.split()[: max(3, target // 3)])


async def test_under_the_threshold_nothing_changes() -> None:
    msgs = _history(2)
    res = await compact(msgs, 100_000, CFG, _short)
    assert not res.compacted and res.messages == msgs and res.notice == ""


async def test_summarizer_shrinks_old_messages_and_keeps_last_pairs_verbatim() -> None:
    msgs = _history(12)
    window = int(estimate_messages(msgs) / 0.8)
    targets: dict[str, set[int]] = {}

    async def summarize(text: str, target: int) -> str:
        targets.setdefault(text.split(":")[0].split()[0], set()).add(target)
        return await _short(text, target)

    res = await compact(msgs, window, CFG, summarize)
    assert res.compacted and res.summarized > 0 and res.fallbacks == 0
    assert res.tokens_after <= CFG.compact_to * window < res.tokens_before
    assert res.messages[0] is SYSTEM
    assert _last_pairs(res.messages) == _last_pairs(msgs)
    assert pair_problems(res.messages) == []
    assert "summarized" in res.notice
    assert targets.get("Task") == {50} and targets.get("Fixed") == {200}  # user ~50 tokens, assistant ~200
    # tool results keep a verbatim header naming the file or the command
    headers = [m.content for m in res.messages if m.role == "tool" and m.compacted]
    assert any(h.startswith("[read_file src/mod") for h in headers)


@pytest.mark.parametrize("failure", ["raises", "hangs", "empty", "none"])
async def test_failing_or_hanging_summarizer_falls_back_to_truncation(failure: str) -> None:
    calls = 0

    async def bad(text: str, target: int) -> str:
        nonlocal calls
        calls += 1
        if failure == "raises":
            raise ConnectionError("LLM server is down")
        if failure == "hangs":
            await asyncio.sleep(3600)
        return ""

    msgs = _history(12)
    window = int(estimate_messages(msgs) / 0.8)
    cfg = ContextConfig(compaction_timeout_s=0.2)
    res = await compact(msgs, window, cfg, None if failure == "none" else bad)
    assert res.compacted and res.fallbacks == res.summarized > 0
    assert res.tokens_after <= cfg.compact_to * window
    assert calls <= 1  # after one failure the pass stops asking
    assert _last_pairs(res.messages) == _last_pairs(msgs)
    assert pair_problems(res.messages) == []
    if failure != "none":
        assert res.errors
    # the command fallback keeps the lines that matter
    commands = [m.content for m in res.messages if m.role == "tool" and m.tool_name == "run_command"]
    assert any("FAILED" in c and "exit code: 1" in c and len(c) < 600 for c in commands)


async def test_cancellation_propagates_through_a_pending_summary() -> None:
    started = asyncio.Event()

    async def slow(text: str, target: int) -> str:
        started.set()
        await asyncio.sleep(3600)
        return ""

    msgs = _history(12)
    task = asyncio.create_task(compact(msgs, int(estimate_messages(msgs) / 0.8), CFG, slow))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_eviction_writes_a_session_summary_after_the_fixed_system_prompt() -> None:
    msgs = [*_history(12), Message("user", "now plan the rest")]
    msgs.append(
        Message(
            "assistant",
            "",
            tool_calls=[
                ToolCall(
                    "p1",
                    "update_plan",
                    {
                        "entries": [
                            {"content": "port mod3", "status": "pending"},
                            {"content": "x", "status": "completed"},
                        ]
                    },
                )
            ],
        )
    )
    msgs.append(Message("tool", "plan updated", tool_call_id="p1", tool_name="update_plan"))
    msgs.append(Message("assistant", "Planned."))
    window = int(estimate_messages(msgs) / 0.9)
    res = await compact(msgs, window, ContextConfig(compact_to=0.2), None, roles=ROLES)
    assert res.evicted > 0 and res.summary
    assert res.messages[0] is SYSTEM and res.messages[0].content == SYSTEM.content
    assert res.messages[1].role == "system" and res.messages[1].summary is True
    s = res.summary
    assert "src/mod0.py" in s and "Files modified" in s and "pytest tests/t0.py (exit 1)" in s
    assert "Task 8" in s and "Fixed module 8: the loop bound was off by one." in s
    assert "Task 0" not in s  # lists are bounded: the newest requests win
    assert res.tokens_after <= 0.2 * window
    assert pair_problems(res.messages) == []
    assert "session summary" in res.notice


async def test_a_second_compaction_keeps_what_the_first_summary_remembered() -> None:
    msgs = _history(12)
    window = int(estimate_messages(msgs) / 0.8)
    first = await compact(msgs, window, ContextConfig(compact_to=0.25), None, roles=ROLES)
    assert first.summary and "src/mod0.py" in first.summary
    grown = first.messages + [m for t in range(12, 20) for m in _turn(t)]
    second = await compact(grown, window, ContextConfig(compact_to=0.25), None, roles=ROLES)
    assert second.summary and "src/mod0.py" in second.summary and "src/mod12.py" in second.summary
    assert sum(1 for m in second.messages if m.summary) == 1


async def test_oversized_recent_tool_results_are_cut_as_a_last_resort() -> None:
    msgs = [SYSTEM]
    for t in range(2):  # everything is inside the last 5 pairs
        msgs += _turn(t, body=20_000)
    window = int(estimate_messages(msgs) / 0.8)
    res = await compact(msgs, window, CFG, None)
    assert res.truncated_recent > 0
    assert [m.content for m in res.messages if m.role in ("user", "assistant")][-2:] == [
        m.content for m in msgs if m.role in ("user", "assistant")
    ][-2:]
    assert pair_problems(res.messages) == []


async def test_tool_definitions_count_against_the_window() -> None:
    msgs = _history(3)
    tools = [ToolSpec(f"t{i}", "a tool " * 50, {"type": "object"}) for i in range(20)]
    extra = estimate_tools(tools)
    window = int((estimate_messages(msgs) + extra) / 0.75)
    assert not (await compact(msgs, window, CFG, None)).compacted
    res = await compact(msgs, window, CFG, None, extra_tokens=extra)
    assert res.compacted and res.tokens_before == estimate_messages(msgs) + extra


def test_with_summary_keeps_the_fixed_prompt_first() -> None:
    msgs = [SYSTEM, Message("user", "hi")]
    out = with_summary(msgs, "earlier: read a.py")
    assert [m.content for m in out] == [SYSTEM.content, "earlier: read a.py", "hi"]
    again = with_summary(out, "newer")
    assert [m.content for m in again] == [SYSTEM.content, "newer", "hi"]


@pytest.mark.parametrize(
    ("messages", "problems"),
    [
        ([Message("assistant", "", tool_calls=[ToolCall("a", "x")]), Message("tool", "r", tool_call_id="a")], 0),
        ([Message("tool", "r", tool_call_id="a")], 1),
        ([Message("assistant", "", tool_calls=[ToolCall("a", "x")]), Message("user", "next")], 1),
    ],
)
def test_pair_problems(messages: list[Message], problems: int) -> None:
    assert len(pair_problems(messages)) == problems


async def test_200_round_session_never_exceeds_the_window() -> None:
    """A long agentic session: every round prune + compact, as the loop does; the prompt always fits."""
    rng = random.Random(7)
    window = 16384
    tools = [ToolSpec(f"t{i}", "tool " * 30, {"type": "object"}) for i in range(10)]
    extra = estimate_tools(tools)
    transcript: list[Message] = [SYSTEM]
    history: list[Message] = [SYSTEM]
    compactions = 0
    for rnd in range(200):
        if rnd % 8 == 0:
            new = [Message("user", f"Round {rnd}: next task " + "context " * rng.randint(5, 80))]
        else:
            cid = f"call{rnd}"
            path = f"src/file{rnd}.py"
            new = [
                Message("assistant", f"Step {rnd}.", tool_calls=[ToolCall(cid, "read_file", {"path": path})]),
                Message("tool", "code line\n" * rng.randint(10, 600), tool_call_id=cid, tool_name="read_file"),
            ]
            if rnd % 8 == 7:
                new.append(Message("assistant", f"Done with round {rnd}. " + "because " * rng.randint(5, 100)))
        transcript += new
        history += new
        history = prune_tool_results(history, CFG.keep_full_turns, CFG.old_result_chars)
        res = await compact(history, window, CFG, _short if rnd % 3 else None, extra_tokens=extra)
        if res.compacted:
            compactions += 1
            assert res.tokens_after <= CFG.compact_to * window
        history = res.messages
        assert estimate_messages(history) + extra <= window
        assert pair_problems(history) == []
        assert history[0] is SYSTEM
        # the last 5 pairs are exactly what happened (content of user/assistant messages untouched)
        recent = [(m.role, m.content) for m in _last_pairs(history) if m.role != "tool"]
        assert recent == [(m.role, m.content) for m in _last_pairs(transcript) if m.role != "tool"]
    assert compactions > 0
    assert any(m.summary for m in history)
