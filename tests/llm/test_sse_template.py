"""The SSE parser's learnt-template shortcut gives exactly the events a full decode of every event gives."""

from __future__ import annotations

import json

from agent_server.llm.openai_stream import SSEChat, StreamState, text_template
from agent_server.messages import Finish, StreamEvent, TextDelta

URL = "http://127.0.0.1:1/x"


def event(content: object, **top: object) -> bytes:
    obj = {"id": "c1", "object": "chat.completion.chunk", **top}
    obj["choices"] = [{"index": 0, "delta": {"content": content}, "finish_reason": None}]
    return b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\n\n"


def parse(body: bytes, read: int = 0) -> tuple[list[StreamEvent], SSEChat]:
    """All events of `body` and `[DONE]`, fed in reads of `read` bytes (0 = one read, then `[DONE]` in another)."""
    parser = SSEChat(StreamState(URL))
    events: list[StreamEvent] = []
    step = read or len(body)
    for i in range(0, len(body), step):
        events.extend(parser.feed(body[i : i + step]))
    events.extend(parser.feed(b"data: [DONE]\n\n"))
    events.extend(parser.close())
    events.append(parser.turn.final())
    return events, parser


def texts(events: list[StreamEvent]) -> list[str]:
    return [e.text for e in events if isinstance(e, TextDelta)]


def test_escaped_and_non_ascii_tokens_decode_exactly() -> None:
    tokens = ["tok ", 'say "hi"', "back\\slash", "caf\u00e9", "\U0001f600", "line\nbreak", "", "\t", "end"]
    body = b"".join(event(t) for t in tokens)
    events, parser = parse(body)
    assert texts(events) == [t for t in tokens if t]
    assert parser.hits >= len(tokens) - 2  # the shortcut did the work after the first event


def test_an_event_that_only_looks_like_the_template_is_decoded_in_full() -> None:
    first = event("a")
    # Same head and tail, but the "content" slot holds more than one string: it smuggles in a usage object.
    head, tail = first.split(b'"a"')
    sneaky = head + b'"b"},"finish_reason":null}],"usage":{"prompt_tokens":7},"z":[{"q":{"r":"c"' + tail
    events, parser = parse(first + sneaky)
    assert parser.learnt == 1  # the template from the first event was in force
    assert texts(events) == ["a", "b"]
    finish = events[-1]
    assert isinstance(finish, Finish) and finish.usage.prompt_tokens == 7


def test_a_decoy_content_field_elsewhere_is_not_taken_for_the_token() -> None:
    body = b"".join(event(t, meta={"content": "decoy"}) for t in ["decoy", "one ", "two ", "decoy"])
    events, parser = parse(body, read=7)
    assert texts(events) == ["decoy", "one ", "two ", "decoy"]
    assert parser.hits > 0
    block = event("decoy", meta={"content": "decoy"})[:-2]
    learnt = text_template(block, json.loads(block[6:]))
    assert learnt is not None and learnt[0].endswith(b'"delta": {"content": ')


def test_events_that_change_every_time_still_parse_and_learning_stops() -> None:
    body = b"".join(event(f"t{i}", id=f"c{i}") for i in range(300))
    events, parser = parse(body, read=4096)
    assert texts(events) == [f"t{i}" for i in range(300)]
    assert parser.learnt <= 8


def test_rare_fields_on_a_matching_stream_still_take_effect() -> None:
    body = event("a") + event("b")
    body += b'data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"c"},'
    body += b'"finish_reason":"length"}]}\n\n'
    body += b'data: {"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"completion_tokens":3}}\n\n'
    events, _ = parse(body)
    assert texts(events) == ["a", "b", "c"]
    finish = events[-1]
    assert isinstance(finish, Finish) and finish.reason == "length" and finish.usage.completion_tokens == 3


def test_lone_surrogate_token_falls_back_like_a_full_decode() -> None:
    body = event("a") + event("b").replace(b'"b"', b'"\\ud800"')
    events, _ = parse(body)
    assert texts(events) == ["a", "\ud800"]
