"""Compaction inside the turn in progress (context/shrink.py through `compact`): small windows never overflow."""

from __future__ import annotations

import hashlib

from agent_server.config import ContextConfig
from agent_server.context import answer_reserve, compact, estimate_messages, pair_problems
from agent_server.context.shrink import compress_result, stub_arguments
from agent_server.index.chunker import outline_chunks
from agent_server.messages import Message, ToolCall
from agent_server.tools.builtin import builtin_tools
from agent_server.tools.kinds import call_roles

CFG = ContextConfig()
ROLES = call_roles(builtin_tools())  # what the turn passes: read_file's results shrink to their outline
SYSTEM = Message("system", "You are a coding agent. " * 40)


def module(i: int, functions: int = 12) -> str:
    return "".join(
        f"def helper_{i}_{n}(value):\n    total = value * {n}\n    return total + {i}\n\n" for n in range(functions)
    )


def read_round(i: int, text: str) -> list[Message]:
    lines = text.splitlines()
    numbered = "\n".join(f"{n}\t{line}" for n, line in enumerate(lines, start=1))
    cid = f"c{i}"
    return [
        Message("assistant", "", tool_calls=[ToolCall(cid, "read_file", {"path": f"pkg/mod{i}.py"})]),
        Message(
            "tool",
            f"pkg/mod{i}.py (lines 1-{len(lines)} of {len(lines)})\n{numbered}",
            tool_call_id=cid,
            tool_name="read_file",
        ),
    ]


def hard(window: int) -> int:
    return window - answer_reserve(window, CFG.min_remaining)


async def test_a_long_turn_in_a_4k_window_always_fits() -> None:
    window = 4096
    request = Message("user", "Read every module in pkg/ and summarize them.")
    history = [SYSTEM, request]
    compactions = 0
    for i in range(40):
        history += read_round(i, module(i, functions=8))
        res = await compact(history, window, CFG, None, roles=ROLES, extra_tokens=600)
        compactions += res.compacted
        history = res.messages
        assert estimate_messages(history) + 600 <= hard(window)
        assert pair_problems(history) == []
        assert history[0] is SYSTEM and request in history  # the task is never lost
        assert next(m for m in history if m.role != "system") is request
        assert history[-1].content.startswith(f"pkg/mod{i}.py (lines 1-")  # the newest result is whole
    assert 0 < compactions < 40  # in steps, not every round
    told = "\n".join(m.content for m in history)
    assert "to fit the context window" in told and "Call read_file with path=" in told
    summary = next(m for m in history if m.summary)
    assert "Files read:" in summary.content and "pkg/mod30.py" in summary.content  # evicted rounds live on there


async def test_a_compressed_read_keeps_the_outline_with_line_numbers() -> None:
    call, result = read_round(3, module(3, functions=20))
    short = compress_result(result, call.tool_calls[0], outliner=outline_chunks, roles=ROLES)  # as a turn does
    assert len(short.content) < len(result.content) / 2
    assert "pkg/mod3.py" in short.content and "start_line/end_line" in short.content
    assert "helper_3_0: lines 1-3" in short.content and "helper_3_4: lines 17-19" in short.content
    assert short.tool_call_id == result.tool_call_id and short.shrunk


async def test_a_100_kb_write_becomes_a_stub_with_size_and_hash() -> None:
    content = "x" * 60 + "\n"
    content = content * 1700
    msg = Message(
        "assistant", "Writing it.", tool_calls=[ToolCall("w", "write_file", {"path": "d.txt", "content": content})]
    )
    stub = stub_arguments(msg)
    args = stub.tool_calls[0].arguments
    assert args["path"] == "d.txt"
    assert str(len(content)) in args["content"] and "1701 lines" in args["content"]
    assert hashlib.sha256(content.encode()).hexdigest()[:12] in args["content"]
    assert msg.tool_calls[0].arguments["content"] == content  # the input is not modified


async def test_a_write_in_the_latest_round_is_stubbed_only_when_it_does_not_fit() -> None:
    window = 8192
    big = "row\n" * 25_000
    history = [
        SYSTEM,
        Message("user", "Write the data file."),
        Message("assistant", "", tool_calls=[ToolCall("w", "write_file", {"path": "data.txt", "content": big})]),
        Message("tool", "Wrote data.txt (100000 characters).", tool_call_id="w", tool_name="write_file"),
    ]
    res = await compact(history, window, CFG, None, roles=ROLES, extra_tokens=1500)
    assert estimate_messages(res.messages) + 1500 <= hard(window)
    assert "sha256" in res.messages[2].tool_calls[0].arguments["content"]
    assert "tool calls replaced by stubs" in res.notice or "cut" in res.notice
    small = [*history[:2], Message("assistant", "", tool_calls=[ToolCall("w", "write_file", {"content": "ok"})])]
    assert not (await compact([*small, history[3]], window, CFG, None, roles=ROLES)).compacted


async def test_a_message_bigger_than_the_window_is_cut_for_the_model() -> None:
    window = 4096
    pasted = "log line with some detail\n" * 4000  # ~100 KB pasted by the user
    history = [SYSTEM, Message("user", "Why does this fail?\n" + pasted)]
    res = await compact(history, window, CFG, None, roles=ROLES, extra_tokens=900)
    assert estimate_messages(res.messages) + 900 <= hard(window)
    user = res.messages[-1]
    assert user.role == "user" and user.content.startswith("Why does this fail?")
    assert "too big for the context window" in user.content
    assert history[1].content.endswith(pasted)  # the caller's copy (the transcript) is untouched


async def test_a_session_left_over_the_window_recovers() -> None:
    """Earlier turns full of huge arguments and results (e.g. from a bigger model): the next prompt fits."""
    window = 4096
    history = [SYSTEM]
    for t in range(3):
        history += [
            Message("user", f"Task {t}"),
            Message(
                "assistant",
                "",
                tool_calls=[ToolCall(f"w{t}", "write_file", {"path": f"f{t}", "content": "z" * 30_000})],
            ),
            Message("tool", "y" * 30_000, tool_call_id=f"w{t}", tool_name="mcp__dump"),
            Message("assistant", f"Done {t}."),
        ]
    history.append(Message("user", "And now?"))
    res = await compact(history, window, CFG, None, roles=ROLES, extra_tokens=900)
    assert estimate_messages(res.messages) + 900 <= hard(window)
    assert pair_problems(res.messages) == []
    assert res.messages[-1].content == "And now?"
    # Whole earlier turns go: the conversation still starts with a user message (strict chat templates need it).
    assert next(m for m in res.messages if m.role != "system").role == "user"


async def test_compaction_output_is_stable_between_rounds() -> None:
    """The compressed prefix is identical when the next round is appended: the server's prompt cache survives."""
    window = 4096
    history = [SYSTEM, Message("user", "Read them all.")]
    for i in range(6):
        history += read_round(i, module(i, functions=8))
        history = (await compact(history, window, CFG, None, roles=ROLES, extra_tokens=600)).messages
    before = list(history)
    history += read_round(99, "x = 1\n")
    after = (await compact(history, window, CFG, None, roles=ROLES, extra_tokens=600)).messages
    assert after[: len(before)] == before


async def test_the_summarizer_is_never_sent_more_than_the_window_holds() -> None:
    window = 4096
    seen: list[int] = []

    async def summarize(text: str, target: int) -> str:
        seen.append(len(text))
        return "short summary"

    history = [
        SYSTEM,
        Message("user", "Dump the table."),
        Message("assistant", "", tool_calls=[ToolCall("d", "mcp__dump", {})]),
        Message("tool", "row\n" * 25_000, tool_call_id="d", tool_name="mcp__dump"),
        Message("assistant", "It has 25,000 rows."),
        *[m for i in range(6) for m in (Message("user", f"Question {i}"), Message("assistant", f"Answer {i}"))],
    ]
    res = await compact(history, window, CFG, summarize, roles=ROLES)
    assert seen and max(seen) <= window * 0.5 * 3.5 + 40
    assert estimate_messages(res.messages) <= hard(window)
