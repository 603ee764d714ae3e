"""Table tests for tokens, window, budget, overflow and pruning."""

from __future__ import annotations

import json

import pytest

from agent_server.context import (
    TokenCounter,
    check_budget,
    choose_num_ctx,
    context_window,
    estimate_message,
    estimate_text,
    estimate_tools,
    is_overflow,
    is_overflow_error,
    overflow_error,
    prune_tool_results,
    usage,
)
from agent_server.llm.base import ModelInfo, ToolSpec
from agent_server.messages import Message, ToolCall


@pytest.mark.parametrize(("text", "tokens"), [("", 0), ("abc", 1), ("a" * 35, 10), ("a" * 36, 11)])
def test_estimate_text(text: str, tokens: int) -> None:
    assert estimate_text(text) == tokens


def test_estimate_message_counts_tool_calls_and_overhead() -> None:
    plain = estimate_message(Message("user", "x" * 350))
    assert plain == 104
    with_call = estimate_message(Message("assistant", "", tool_calls=[ToolCall("c", "write_file", {"c": "y" * 700})]))
    assert with_call > 200  # the arguments are what the model sees


def test_tool_definitions_are_measured_from_their_json() -> None:
    small = [ToolSpec("a", "d", {"type": "object"})]
    big = [ToolSpec(f"tool{i}", "does things " * 20, {"type": "object", "properties": {"x": {}}}) for i in range(10)]
    assert estimate_tools([]) == 0
    assert 0 < estimate_tools(small) < estimate_tools(big)
    assert estimate_tools(big) == estimate_text(
        json.dumps(
            [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                }
                for t in big
            ]
        )
    )


def test_token_counter_calibrates_towards_reported_counts() -> None:
    c = TokenCounter()
    assert c.scale(1000) == 1000
    c.observe(1000, 1300)
    assert c.scale(1000) == 1300  # the first measurement replaces the prior
    for _ in range(30):
        c.observe(1000, 1100)
    assert 1095 <= c.scale(1000) <= 1110
    c.observe(0, 500)  # unknowns are ignored
    c.observe(1000, 0)
    assert 1095 <= c.scale(1000) <= 1110
    c.observe(10, 100_000)  # absurd samples are clamped
    assert c.ratio <= 3.0
    assert c.count([Message("user", "x" * 35)]) == c.scale(14)


@pytest.mark.parametrize(
    ("info", "override", "window"),
    [
        (None, None, 4096),
        (ModelInfo("m", context_length=32768), None, 32768),
        (ModelInfo("m", context_length=32768), 8192, 8192),
        (ModelInfo("m"), None, 4096),
    ],
)
def test_context_window(info: ModelInfo | None, override: int | None, window: int) -> None:
    assert context_window(info, override) == window


@pytest.mark.parametrize(
    ("model_max", "wanted", "current", "expected"),
    [
        (131072, 3000, None, 4096),
        (131072, 4097, None, 8192),
        (131072, 20000, None, 32768),
        (10000, 20000, None, 10000),  # capped at the model
        (131072, 3000, 16384, 16384),  # sticky: never shrinks in a session
        (131072, 40000, 16384, 65536),  # but grows
        (None, 200000, None, 200000),  # past the ladder: exactly what is needed
        (8192, 3000, 16384, 8192),  # a current value above the model max is capped
    ],
)
def test_choose_num_ctx(model_max: int | None, wanted: int, current: int | None, expected: int) -> None:
    assert choose_num_ctx(model_max, wanted, current) == expected


def test_choose_num_ctx_is_stable_across_rounds() -> None:
    chosen = None
    seen = []
    for wanted in (3000, 3500, 3900, 5000, 4000, 3000, 9000, 8000):
        chosen = choose_num_ctx(131072, wanted, chosen)
        seen.append(chosen)
    assert seen == [4096, 4096, 4096, 8192, 8192, 8192, 16384, 16384]
    with pytest.raises(ValueError, match="positive"):
        choose_num_ctx(8192, 0)


@pytest.mark.parametrize(
    ("used", "window", "ok", "remaining"),
    [(1000, 8192, True, 7192), (6692, 8192, True, 1500), (6693, 8192, False, 1499), (9000, 8192, False, -808)],
)
def test_budget_gate(used: int, window: int, ok: bool, remaining: int) -> None:
    b = check_budget(used, window, 1500)
    assert (b.ok, b.remaining) == (ok, remaining)


def test_budget_bad_window_and_usage_update() -> None:
    with pytest.raises(ValueError, match="window"):
        check_budget(10, 0)
    u = usage(9000, 8192)
    assert u.model_dump(by_alias=True, exclude_none=True) == {
        "sessionUpdate": "usage_update",
        "used": 8192,
        "size": 8192,
    }


@pytest.mark.parametrize(
    ("reported", "num_ctx", "estimated", "overflow"),
    [
        (4096, 4096, 6000, True),  # Ollama cut the prompt to the window
        (3950, 4096, 6000, True),
        (4096, 4096, 4000, False),  # full, but everything fit
        (2000, 4096, 6000, False),  # our estimate is just high
        (0, 4096, 6000, False),
        (4096, None, 6000, False),
    ],
)
def test_is_overflow(reported: int, num_ctx: int | None, estimated: int, overflow: bool) -> None:
    assert is_overflow(reported, num_ctx, estimated) is overflow


@pytest.mark.parametrize(
    ("message", "prompt", "ctx"),
    [
        (
            '{"code":400,"message":"the request exceeds the available context size, try increasing it",'
            '"type":"exceed_context_size_error","n_prompt_tokens":14429,"n_ctx":8192}',
            14429,
            8192,
        ),
        (
            "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens in the messages",
            5000,
            4096,
        ),
        ("the input length exceeds the context length", None, None),
        ("Trying to keep the first 5000 tokens when context the overflows. context_length_exceeded", None, None),
    ],
)
def test_overflow_errors_are_recognized(message: str, prompt: int | None, ctx: int | None) -> None:
    assert is_overflow_error(message)
    err = overflow_error(message)
    assert err is not None and (err.prompt_tokens, err.n_ctx) == (prompt, ctx)


@pytest.mark.parametrize("message", ["model not found", "connection refused", "invalid tool schema"])
def test_other_errors_are_not_overflow(message: str) -> None:
    assert not is_overflow_error(message) and overflow_error(message) is None


def _session(turns: int, result_chars: int = 1000, tool: str = "read_file") -> list[Message]:
    out = [Message("system", "sys")]
    for t in range(turns):
        out += [
            Message("user", f"question {t}"),
            Message("assistant", "", tool_calls=[ToolCall(f"c{t}", tool, {"path": f"f{t}.py"})]),
            Message("tool", f"{t}:" + "x" * result_chars, tool_call_id=f"c{t}", tool_name=tool),
            Message("assistant", f"answer {t}"),
        ]
    return out


def test_pruning_cuts_only_results_older_than_the_last_turns() -> None:
    msgs = _session(15)
    pruned = prune_tool_results(msgs, keep_full_turns=10, max_chars=200)
    tools = [m for m in pruned if m.role == "tool"]
    assert all(len(m.content) < 300 and "omitted" in m.content for m in tools[:5])
    assert [m.content for m in tools[5:]] == [m.content for m in msgs if m.role == "tool"][5:]
    assert tools[0].content.startswith("0:xxx")
    assert len(pruned) == len(msgs)
    assert msgs[3].content == "0:" + "x" * 1000  # inputs untouched


def test_pruning_is_idempotent_and_respects_never_compress() -> None:
    msgs = _session(15)
    once = prune_tool_results(msgs, 10, 200)
    assert prune_tool_results(once, 10, 200) == once
    kept = prune_tool_results(_session(15, tool="auth"), 10, 200, never_compress={"auth"})
    assert all(len(m.content) > 1000 for m in kept if m.role == "tool")


def test_pruning_with_few_turns_changes_nothing() -> None:
    msgs = _session(3)
    assert prune_tool_results(msgs, 10, 200) == msgs
