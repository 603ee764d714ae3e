"""The incremental stream parsers give the same answer however TCP cuts the bytes, for the unusual shapes too."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from agent_server.errors import LLMStreamError
from agent_server.llm.ollama import NDJSONChat
from agent_server.llm.openai_stream import SSEChat, StreamState
from agent_server.messages import Finish, StreamEvent, TextDelta, ThinkingDelta, ToolCallEvent

URL = "http://127.0.0.1:1/x"


def sse(body: bytes, cuts: list[int]) -> tuple[list[StreamEvent], StreamState]:
    turn = StreamState(URL)
    parser = SSEChat(turn)
    events: list[StreamEvent] = []
    for start, end in zip([0, *cuts], [*cuts, len(body)], strict=True):
        events.extend(parser.feed(body[start:end]))
    events.extend(parser.close())
    events.extend(turn.flush_calls())
    return events, turn


def ndjson(body: bytes, cuts: list[int]) -> list[StreamEvent]:
    parser = NDJSONChat(URL)
    events: list[StreamEvent] = []
    for start, end in zip([0, *cuts], [*cuts, len(body)], strict=True):
        events.extend(parser.feed(body[start:end]))
    events.extend(parser.close())
    assert parser.finished
    return events


def every_split(body: bytes, check: Callable[[list[int]], None]) -> None:
    """Whole, byte by byte, and cut once at every position."""
    check([])
    check(list(range(1, len(body))))
    for i in range(1, len(body)):
        check([i])


def summary(events: list[StreamEvent]) -> tuple[str, str, list[str]]:
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    thinking = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    return text, thinking, [e.call.name for e in events if isinstance(e, ToolCallEvent)]


SSE_ODD = (
    b": keep-alive comment\r\n\r\n"
    b'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}\r\n\r\n'
    b'data:{"choices":[{"index":0,"delta":{"reasoning_content":"hm"}}]}\n\n'
    # One event in two `data:` lines (joined with a newline, which is JSON whitespace).
    b'data: {"choices":[{"index":0,\ndata: "delta":{"content":"caf\xc3\xa9 "}}]}\n\n'
    b'data: {"choices":[{"index":1,"delta":{"content":"other choice"}}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{"content":"\\u2603"}}],"x":NaN}\n\n\n\n'
    b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"read_file",'
    b'"arguments":"{\\"path\\": \\"a.py\\"}"}}]},"finish_reason":"tool_calls"}],"big":123456789012345678901234567890}\n\n'
    b'data: {"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3}}\n\n'
    b"data: [DONE]\n"
)


def test_sse_odd_shapes_parse_the_same_at_every_cut() -> None:
    def check(cuts: list[int]) -> None:
        events, turn = sse(SSE_ODD, cuts)
        assert summary(events) == ("café ☃", "hm", ["read_file"]), cuts
        assert turn.done and turn.finish == "tool_calls"
        final = turn.final()
        assert (final.reason, final.usage.prompt_tokens, final.usage.completion_tokens) == ("tool_calls", 7, 3)

    every_split(SSE_ODD, check)


def test_sse_stops_at_done_and_ignores_what_follows() -> None:
    body = b'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: [DONE]\n\ndata: {not json\n\n'
    events, turn = sse(body, [])
    assert summary(events)[0] == "a" and turn.done


@pytest.mark.parametrize(
    ("body", "match"),
    [
        (b'data: {"choices":[{"delta":{"content":"a"}}]}\n\ndata: {not json\n\n', "not JSON"),
        (b"data: [1, 2]\n\n", "unexpected event"),
        (b'data: {"error":{"code":500,"message":"model crashed"}}\n\n', "model crashed"),
        (b'error: {"code":500,"message":"legacy crash"}\n\ndata: [DONE]\n\n', "legacy crash"),
    ],
)
def test_sse_bad_events_raise_a_clear_stream_error(body: bytes, match: str) -> None:
    with pytest.raises(LLMStreamError, match=match):
        sse(body, [])
    with pytest.raises(LLMStreamError, match=match):
        sse(body, list(range(1, len(body))))


NDJSON_ODD = (
    b"\n"
    b'{"message":{"role":"assistant","content":"","thinking":"hm"},"done":false}\r\n'
    b"   \n"
    b'{"message":{"role":"assistant","content":"caf\xc3\xa9 "},"done":false,"x":NaN}\n'
    b'{"message":{"role":"assistant","content":"\\u2603"},"done":false,"big":123456789012345678901234567890}\n'
    b'{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"read_file","arguments":{}}}]},'
    b'"done":false}\n'
    b'{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":3}'
)


def test_ndjson_odd_shapes_parse_the_same_at_every_cut() -> None:
    def check(cuts: list[int]) -> None:
        events = ndjson(NDJSON_ODD, cuts)
        assert summary(events) == ("café ☃", "hm", ["read_file"]), cuts
        last = events[-1]
        assert isinstance(last, Finish) and (last.reason, last.usage.completion_tokens) == ("tool_calls", 3)

    every_split(NDJSON_ODD, check)


@pytest.mark.parametrize(
    ("body", "match"),
    [
        (b'{"message":{"content":"a"},"done":false}\n{not json\n', "not JSON"),
        (b'["a"]\n', "unexpected line"),
        (b'{"error":"model crashed"}\n', "model crashed"),
    ],
)
def test_ndjson_bad_lines_raise_a_clear_stream_error(body: bytes, match: str) -> None:
    with pytest.raises(LLMStreamError, match=match):
        NDJSONChat(URL).feed(body)
