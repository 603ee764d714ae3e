"""The SSE stream of an OpenAI-compatible chat completion -> our stream events (text, thinking, tool calls, usage).

The SSE lines are parsed here rather than with httpx-sse: httpx-sse drops llama.cpp's legacy `error: {...}` field and
never dispatches a final `data: [DONE]` that lacks its blank line, and both happen in the wild.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..errors import LLMStreamError
from ..messages import (
    Finish,
    FinishReason,
    PromptProgress,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    ToolCallEvent,
    Usage,
)
from ._http import Pending, decode_json, loads, raise_stream_error

log = logging.getLogger(__name__)


@dataclass
class _Pending:
    id: str = ""
    name: str = ""
    parts: list[str] = field(default_factory=list)
    obj: dict[str, Any] | None = None


class ToolCallAccumulator:
    """Tool-call deltas keyed by index: first non-empty id/name kept, argument strings concatenated."""

    def __init__(self) -> None:
        self._calls: dict[int, _Pending] = {}
        self._last: int | None = None

    def __bool__(self) -> bool:
        return bool(self._calls)

    def add(self, delta: dict[str, Any]) -> None:
        index = delta.get("index")
        cid = delta.get("id")
        if not isinstance(index, int):
            known = next((i for i, p in self._calls.items() if cid and p.id == cid), None)
            if known is not None:
                index = known
            elif cid or self._last is None:
                index = len(self._calls)
            else:
                index = self._last
        self._last = index
        pending = self._calls.setdefault(index, _Pending())
        if cid and not pending.id:
            pending.id = str(cid)
        fn = delta.get("function") or {}
        if (name := fn.get("name")) and not pending.name:
            pending.name = str(name)
        args = fn.get("arguments")
        if isinstance(args, dict):
            pending.obj = args
        elif isinstance(args, str):
            pending.parts.append(args)

    def finish(self) -> list[ToolCall]:
        out = []
        for _, p in sorted(self._calls.items()):
            if not p.name:
                log.warning("dropping a tool call without a name (arguments %r)", "".join(p.parts)[:200])
                continue
            call = ToolCall(id=p.id or "call_" + uuid.uuid4().hex[:8], name=p.name)
            text = "".join(p.parts)
            if p.obj is not None:
                call.arguments = p.obj
            elif text.strip():
                try:
                    parsed = json.loads(text)
                except ValueError as exc:
                    call.arguments_error = f"arguments are not valid JSON ({exc}): {text[:200]}"
                else:
                    if isinstance(parsed, dict):
                        call.arguments = parsed
                    else:
                        call.arguments_error = f"arguments must be a JSON object, got: {text[:200]}"
            out.append(call)
        self._calls.clear()
        return out


def usage_from(usage: dict[str, Any] | None, timings: dict[str, Any] | None) -> Usage:
    u, t = usage or {}, timings or {}
    details = u.get("prompt_tokens_details") or {}
    prompt = u.get("prompt_tokens")
    completion = u.get("completion_tokens")
    if prompt is None and t:
        prompt = int(t.get("prompt_n") or 0) + int(t.get("cache_n") or 0)
    if completion is None and t:
        completion = t.get("predicted_n")
    prompt_ms = float(t.get("prompt_ms") or 0)
    eval_ms = float(t.get("predicted_ms") or 0)
    return Usage(
        prompt_tokens=int(prompt or 0),
        completion_tokens=int(completion or 0),
        cached_tokens=int(details.get("cached_tokens") or t.get("cache_n") or 0),
        prompt_eval_duration_ms=prompt_ms,
        eval_duration_ms=eval_ms,
        total_duration_ms=prompt_ms + eval_ms,
    )


def prompt_progress(obj: dict[str, Any]) -> PromptProgress:
    """llama.cpp's `prompt_progress`: {total, cache, processed, time_ms}, sent at each batch of the prompt."""

    def number(key: str) -> int:
        value = obj.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0

    return PromptProgress(total=number("total"), cache=number("cache"), processed=number("processed"))


class StreamState:
    """State of one streamed completion."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.calls = ToolCallAccumulator()
        self.emitted_calls = 0
        self.finish: str | None = None
        self.usage: dict[str, Any] | None = None
        self.timings: dict[str, Any] | None = None
        self.done = False

    def chunk(self, obj: Any) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        self.chunk_into(obj, events)
        return events

    def chunk_into(self, obj: Any, events: list[StreamEvent]) -> None:
        # Fast path for what servers send per token, one choice whose delta is only `content`, with nothing else
        # that the general path would act on (error, usage, timings, finish_reason, another index). The same test as
        # `is_plain_text`, inlined because it runs once per token; keep the two in step.
        if type(obj) is dict and type(choices := obj.get("choices")) is list and len(choices) == 1:
            choice = choices[0]
            if (
                type(choice) is dict
                and type(delta := choice.get("delta")) is dict
                and len(delta) == 1
                and type(content := delta.get("content")) is str
                and not choice.get("finish_reason")
                and choice.get("index", 0) == 0
                and obj.get("usage") is None
                and obj.get("timings") is None
                and "error" not in obj
                and obj.get("object") != "error"
            ):
                if content:
                    events.append(TextDelta(content))
                return
        self._chunk_general(obj, events)

    @staticmethod
    def is_plain_text(obj: dict[str, Any]) -> bool:
        """Whether a decoded event is one choice whose delta is only a `content` string, with nothing else to act on."""
        choices = obj.get("choices")
        if type(choices) is not list or len(choices) != 1:
            return False
        choice = choices[0]
        return (
            type(choice) is dict
            and type(delta := choice.get("delta")) is dict
            and len(delta) == 1
            and type(delta.get("content")) is str
            and not choice.get("finish_reason")
            and choice.get("index", 0) == 0
            and obj.get("usage") is None
            and obj.get("timings") is None
            and "error" not in obj
            and obj.get("object") != "error"
        )

    def _chunk_general(self, obj: Any, events: list[StreamEvent]) -> None:
        if type(obj) is not dict:
            raise LLMStreamError(self.url, f"unexpected event: {str(obj)[:200]}")
        if "error" in obj:
            raise_stream_error(self.url, obj["error"])
        if obj.get("object") == "error":
            raise_stream_error(self.url, obj)
        if (usage := obj.get("usage")) is not None and isinstance(usage, dict):
            self.usage = usage
        if (timings := obj.get("timings")) is not None and isinstance(timings, dict):
            self.timings = timings
        if type(progress := obj.get("prompt_progress")) is dict:
            events.append(prompt_progress(progress))
        for choice in obj.get("choices") or ():
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or choice.get("message")
            if delta:
                if thinking := delta.get("reasoning_content") or delta.get("reasoning"):
                    events.append(ThinkingDelta(thinking if type(thinking) is str else str(thinking)))
                if content := delta.get("content"):
                    events.append(TextDelta(content if type(content) is str else str(content)))
                if calls := delta.get("tool_calls"):
                    for tc in calls:
                        if isinstance(tc, dict):
                            self.calls.add(tc)
            if reason := choice.get("finish_reason"):
                self.finish = str(reason)
                events.extend(self.flush_calls())

    def flush_calls(self) -> list[StreamEvent]:
        calls = self.calls.finish()
        self.emitted_calls += len(calls)
        return [ToolCallEvent(c) for c in calls]

    def final(self) -> Finish:
        reason: FinishReason = "stop"
        if self.finish == "length":
            reason = "length"
        elif self.emitted_calls:
            reason = "tool_calls"  # older LM Studio says "stop" even with calls
        return Finish(reason, usage_from(self.usage, self.timings))


# The JSON string after a `"content"` key, located in a raw event to learn the event's template.
_CONTENT_VALUE = re.compile(rb'"content"\s*:\s*("(?:[^"\\]|\\.)*")')
_PROBE = "\x01probe"
_PROBE_JSON = orjson.dumps(_PROBE)


def text_template(block: bytes, obj: Any) -> tuple[bytes, bytes] | None:
    """(head, tail) such that `block` is head + the JSON string of `obj`'s only delta content + tail, when `obj` is the
    plain text shape `StreamState.chunk_into` takes its fast path on; proved by decoding head + probe + tail back to
    `obj`."""
    try:
        choice = obj["choices"][0]
        content = choice["delta"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    if type(content) is not str or not StreamState.is_plain_text(obj):
        return None
    for match in _CONTENT_VALUE.finditer(block):
        head, tail = block[: match.start(1)], block[match.end(1) :]
        try:
            probe = orjson.loads(head[6:] + _PROBE_JSON + tail)
            probe_delta = probe["choices"][0]["delta"]
        except (orjson.JSONDecodeError, KeyError, IndexError, TypeError):
            continue
        if type(probe_delta) is dict and probe_delta.get("content") == _PROBE:
            probe_delta["content"] = content
            if probe == obj:
                return head, tail
    return None


class SSEChat:
    """Incremental SSE parser: bytes in, events out; handles comments, `[DONE]` and llama.cpp's `error:` field.

    Servers repeat the same event around each token, so once an event's template is learnt (`text_template`), an event
    that matches it only needs its content string decoded, not the whole object."""

    def __init__(self, turn: StreamState) -> None:
        self.turn = turn
        self.pending = Pending(turn.url, "an event")  # the event not ended yet: at most MAX_LINE bytes
        self.data: list[bytes] = []
        self.head = b"\x00"  # matches no event until a template is learnt
        self.tail = b""
        self.hits = 0
        self.learnt = 0

    def feed(self, chunk: bytes) -> list[StreamEvent]:
        if not _may_end_event(self.pending.last(2), chunk):
            self.pending.add(chunk)  # no event ends in it: kept as a piece, joined once one does
            return []
        text = self.pending.take(chunk)
        if b"\r" in text:
            text = text.replace(b"\r\n", b"\n")  # same as stripping one `\r` from the end of every line
        # Whole events (ended by a blank line) at once; the incomplete tail waits (it is part of this chunk).
        blocks = text.split(b"\n\n")
        tail = blocks.pop()
        self.pending.add(tail)
        out: list[StreamEvent] = []
        turn = self.turn
        if not self.data and not turn.done and _all_simple(text, len(text) - len(tail), len(blocks)):
            # Every whole event is one `data: {...}` line (what servers send per token): decode them in a tight loop.
            chunk_into = turn.chunk_into
            head, tail = self.head, self.tail
            start, end = len(head), -len(tail) or None
            hits = 0
            for block in blocks:
                if block.startswith(head) and block.endswith(tail):
                    try:
                        content = orjson.loads(block[start:end])
                    except orjson.JSONDecodeError:
                        content = None
                    if type(content) is str:
                        if content:
                            out.append(TextDelta(content))
                        hits += 1
                        continue
                try:
                    obj = orjson.loads(block[6:])
                except orjson.JSONDecodeError:
                    obj = decode_json(turn.url, block[6:])
                chunk_into(obj, out)
                # (Re)learn after a miss, on a budget: a server that changes every event (a per-event id) never fits.
                if self.learnt < 4 + (self.hits + hits) // 64 and (learnt := text_template(block, obj)) is not None:
                    self.learnt += 1
                    head, tail = self.head, self.tail = learnt
                    start, end = len(head), -len(tail) or None
            self.hits += hits
            return out
        for block in blocks:
            if turn.done:
                break
            if block.startswith(b"data: {") and not self.data and b"\n" not in block:
                # The usual shape, one `data: {...}` line, decoded inline: this loop runs once per token.
                try:
                    obj = orjson.loads(block[6:])
                except orjson.JSONDecodeError:
                    obj = decode_json(turn.url, block[6:])
                turn.chunk_into(obj, out)
            else:
                for line in block.split(b"\n"):
                    self._line(line, out)
                if self.data and not turn.done:
                    self._dispatch(out)
        return out

    def close(self) -> list[StreamEvent]:
        """Dispatch what is left: a final `data: [DONE]` may lack its blank line, or even its newline."""
        out: list[StreamEvent] = []
        for line in self.pending.take().split(b"\n"):
            if self.turn.done:
                break
            self._line(line.rstrip(b"\r"), out)
        if self.data and not self.turn.done:
            self._dispatch(out)
        return out

    def _line(self, line: bytes, out: list[StreamEvent]) -> None:
        if line.startswith(b"data:"):
            value = line[5:]
            self.data.append(value[1:] if value.startswith(b" ") else value)
        elif not line:
            if self.data:
                self._dispatch(out)
        elif line.startswith(b":"):
            return
        elif line.startswith(b"error:"):
            # llama.cpp builds before PR #16109 sent `error: {...}` then `data: [DONE]`.
            raw = line[6:].strip().decode("utf-8", "replace")
            try:
                parsed: Any = json.loads(raw)
            except ValueError:
                parsed = raw
            raise_stream_error(self.turn.url, parsed)

    def _dispatch(self, out: list[StreamEvent]) -> None:
        payload = self.data[0] if len(self.data) == 1 else b"\n".join(self.data)
        self.data = []
        self._dispatch_one(payload, out)

    def _dispatch_one(self, payload: bytes, out: list[StreamEvent]) -> None:
        if not payload.startswith(b"{") and payload.strip() == b"[DONE]":
            self.turn.done = True
            return
        try:
            obj = loads(payload)
        except ValueError:
            obj = decode_json(self.turn.url, payload)
        self.turn.chunk_into(obj, out)


def _may_end_event(before: bytes, chunk: bytes) -> bool:
    """Whether a blank line (`\\n\\n`, or `\\n\\r\\n`) ends in `chunk`, `before` being the two bytes before it."""
    if b"\n\n" in chunk or b"\n\r\n" in chunk:
        return True
    seam = before + chunk[:2]
    return b"\n\n" in seam or b"\n\r\n" in seam


def _all_simple(text: bytes, end: int, n: int) -> bool:
    """Whether the `n` events in `text[:end]` (each ended by a blank line) are each a single `data: {` line: no
    other newline in there, and every event boundary is followed by `data: {`."""
    return (
        n > 0
        and text.startswith(b"data: {")
        and text.count(b"\n", 0, end) == 2 * n
        and text.count(b"\n\ndata: {", 0, end) == n - 1
    )
