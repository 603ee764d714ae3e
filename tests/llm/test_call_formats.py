"""Call formats beyond JSON and tags (llm/call_formats/): the published examples of each format in
tests/fixtures/call_formats.json are recovered with the calls and the visible text they should give, a Harmony stream
split in any pieces gives the same thinking, text and calls, and hostile text of 100k characters finishes (the
timeout is the assertion: a quadratic scan takes minutes on these)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_server.llm.call_formats.harmony import HarmonyStream
from agent_server.llm.text_tools import call_shaped, recover_tool_calls
from agent_server.messages import TextDelta, ThinkingDelta, ToolCallEvent

FIXTURES = json.loads((Path(__file__).parents[1] / "fixtures" / "call_formats.json").read_text())["entries"]


def _id(entry: dict[str, Any]) -> str:
    return f"{entry['format']}-{FIXTURES.index(entry)}"


@pytest.mark.parametrize("entry", FIXTURES, ids=_id)
def test_each_published_example_gives_its_calls_and_visible_text(entry: dict[str, Any]) -> None:
    calls, visible = recover_tool_calls(entry["text"], set(entry["names"]))
    assert [{"name": c.name, "arguments": c.arguments} for c in calls] == entry["calls"]
    assert all(c.arguments_error is None for c in calls)
    assert visible == entry["visible"]


@pytest.mark.parametrize("entry", [e for e in FIXTURES if e["format"] != "pythonic" or "<|" in e["text"]], ids=_id)
def test_a_marked_call_of_a_name_that_is_not_a_tool_is_still_call_shaped(entry: dict[str, Any]) -> None:
    calls, _visible = recover_tool_calls(entry["text"], {"something_else"})
    assert calls == []
    assert [c.name for c in call_shaped(entry["text"])] == [c["name"] for c in entry["calls"]]


def test_a_bare_pythonic_list_counts_only_when_it_names_a_tool() -> None:
    text = "See [link(text)] and [read_file(path='a.py')]."
    calls, visible = recover_tool_calls(text, {"read_file"})
    assert [(c.name, c.arguments) for c in calls] == [("read_file", {"path": "a.py"})]
    assert visible == "See [link(text)] and ."
    assert call_shaped("[link(text='x')]") == []  # prose, not a call of an unknown tool


def test_pythonic_arguments_are_never_evaluated() -> None:
    calls, _ = recover_tool_calls("[run_command(command=__import__('os').system('touch x'))]", {"run_command"})
    assert calls[0].arguments == {} and "not a literal" in (calls[0].arguments_error or "")
    calls, _ = recover_tool_calls("[run_command('ls')]", {"run_command"})
    assert "by name" in (calls[0].arguments_error or "")


@pytest.mark.parametrize("entry", [e for e in FIXTURES if e["format"] == "harmony"], ids=_id)
@pytest.mark.parametrize("piece", [1, 2, 5, 11, 1000])
def test_a_harmony_stream_in_any_pieces_splits_into_thinking_text_and_calls(entry: dict[str, Any], piece: int) -> None:
    split, events = HarmonyStream(), []
    text = entry["text"]
    for i in range(0, len(text), piece):
        events += split.feed(text[i : i + piece])
    events += split.close()
    assert "".join(e.text for e in events if isinstance(e, ThinkingDelta)) == entry["thinking"]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)).strip() == entry["visible"]
    calls = [e.call for e in events if isinstance(e, ToolCallEvent)]
    assert [{"name": c.name, "arguments": c.arguments} for c in calls] == entry["calls"]


def test_a_harmony_call_whose_stop_token_the_server_left_out_still_ends_at_the_end() -> None:
    split = HarmonyStream()
    events = split.feed('<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path": "a.py"}')
    events += split.close()
    assert [(e.call.name, e.call.arguments) for e in events if isinstance(e, ToolCallEvent)] == [
        ("read_file", {"path": "a.py"})
    ]


HOSTILE = [
    "[a(",
    "[read_file(path='",
    "[read_file(x=[",
    "[read_file(path='a')]",
    "<|tool_call_start|>[",
    "[TOOL_CALLS][",
    '[TOOL_CALLS]["',
    "[TOOL_CALLS]x{",
    '[TOOL_CALLS]x{"a":',
    "<|channel|>",
    "<|start|>assistant",
    "<|channel|>a<|message|>",
    "<|channel|>commentary to=functions.read_file<|message|>{",
]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("unit", HOSTILE)
def test_100k_characters_of_a_hostile_shape_finish(unit: str) -> None:
    text = (unit * (100_000 // len(unit) + 1))[:100_000]
    calls, _visible = recover_tool_calls(text, {"read_file", "x", "a"})
    assert len(calls) <= len(text)
    call_shaped(text)
    split = HarmonyStream()
    for i in range(0, len(text), 997):
        split.feed(text[i : i + 997])
    split.close()
