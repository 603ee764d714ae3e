"""gpt-oss's Harmony format, when a server passes it through as text instead of parsing it (llama.cpp without
`--jinja`, a raw completion proxy): `<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>commentary
to=functions.read_file <|constrain|>json<|message|>{"path":"a.py"}<|call|>` and `<|channel|>final<|message|>…`.

The `analysis` channel is the model's chain of thought: shown as thinking, never as the answer. A message with a
recipient (`to=functions.NAME`, in the role or the channel part of its header) is a call. `final` is the answer, and a
`commentary` message without a recipient is a preamble meant for the user: both are shown. `<|call|>` and `<|return|>`
are stop tokens most servers leave out, so the end of the text ends a message too. The shapes are the ones OpenAI's
Harmony documentation gives (docs/format.md of openai/harmony; tests/fixtures/call_formats/harmony_*.txt).

`HarmonyStream` splits a streamed answer as it comes (thinking, text, calls); `Harmony.find` finds the same spans in
a whole text for the text call recovery. Both are linear: one token pattern, searched forward only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ...messages import StreamEvent, TextDelta, ThinkingDelta, ToolCall, ToolCallEvent
from .base import Found, make_call, offered

_TOKEN = re.compile(r"<\|(start|end|message|channel|constrain|return|call)\|>")
_ENDS = {"end", "return", "call"}
_CHANNEL = re.compile(r"<\|channel\|>\s*([A-Za-z_]+)")
_RECIPIENT = re.compile(r"\bto=([^\s<]+)")
MAX_HEADER = 4096  # a header this long without `<|message|>` is not Harmony: what was held is shown as text
_LONGEST = max(len(f"<|{t}|>") for t in ("start", "end", "message", "channel", "constrain", "return", "call"))


@dataclass
class Header:
    channel: str = "final"
    recipient: str | None = None

    @property
    def kind(self) -> str:
        """ "call", "thinking" or "text"."""
        if self.recipient:
            return "call"
        return "thinking" if self.channel == "analysis" else "text"

    @property
    def tool(self) -> str:
        recipient = self.recipient or ""
        return recipient.removeprefix("functions.")


def parse_header(header: str) -> Header:
    channel = _CHANNEL.search(header)
    recipient = _RECIPIENT.search(header)
    return Header(channel.group(1) if channel else "final", recipient.group(1) if recipient else None)


def looks_like_harmony(text: str) -> bool:
    """Whether an answer starts the Harmony way (a channel, or a message start)."""
    head = text.lstrip()[:16]
    return head.startswith(("<|channel|>", "<|start|>"))


class Harmony:
    name = "harmony"

    def __init__(self) -> None:
        self.held: dict[str, str] = {}  # split by HarmonyStream as it streams, for the models that write it

    def find(self, text: str, names: set[str] | None) -> Iterator[Found]:
        """Spans to cut from what the user sees: headers, terminators and analysis messages (no call), and call
        messages (with their call when it is offered). `final` and preamble contents stay."""
        at = 0
        while (head := _next(text, at, ("channel", "start"))) is not None:
            at = head.start()
            body = _next(text, at, ("message", *_ENDS))
            if body is None or body.group(1) != "message":  # a header that never reaches its message
                yield Found(at, len(text) if body is None else body.end())
                if body is None:
                    return
                at = body.end()
                continue
            header = parse_header(text[at : body.start()])
            end = _next(text, body.end(), (*_ENDS, "start", "channel"))
            content_end = len(text) if end is None else end.start()
            after = len(text) if end is None else (end.end() if end.group(1) in _ENDS else end.start())
            if header.kind == "text":
                yield Found(at, body.end())
                if after > content_end:
                    yield Found(content_end, after)
            else:
                calls = [_call(header.tool, text[body.end() : content_end])] if header.kind == "call" else []
                yield Found(at, after, [c for c in calls if offered(c.name, names)])
            at = after


def _next(text: str, at: int, kinds: tuple[str, ...]) -> re.Match[str] | None:
    """The next token of one of `kinds` from `at` (the others are skipped)."""
    token = _TOKEN.search(text, at)
    while token is not None and token.group(1) not in kinds:
        token = _TOKEN.search(text, token.end())
    return token


def _call(name: str, arguments: str) -> ToolCall:
    return make_call(name, arguments.strip() or "{}")


@dataclass
class HarmonyStream:
    """A streamed Harmony answer split as it comes: analysis -> thinking, final and preambles -> text, a message to
    `functions.NAME` -> one call when it ends. Text before any Harmony token is shown as text."""

    pending: str = ""
    in_header: bool = False
    header: Header = field(default_factory=Header)
    args: list[str] = field(default_factory=list)
    calls: int = 0
    between: bool = False  # after a message's end, before the next header: whitespace there is no text

    def feed(self, text: str) -> list[StreamEvent]:
        # Read with an index and cut once at the end: cutting at every token copied the rest each time.
        pending = self.pending + text
        out: list[StreamEvent] = []
        at = 0
        while at < len(pending):
            if self.in_header:
                body = pending.find("<|message|>", at, at + MAX_HEADER + len("<|message|>"))
                if body < 0:
                    if len(pending) - at <= MAX_HEADER:
                        break  # the header may go on in the next piece
                    self.in_header, self.header = False, Header()  # not Harmony after all: what was held is text
                    self._content(pending[at : at + MAX_HEADER], out)
                    at += MAX_HEADER
                    continue
                self.header = parse_header(pending[at:body])
                self.in_header = self.between = False
                at = body + len("<|message|>")
                continue
            token = _next(pending, at, (*_ENDS, "start", "channel"))
            if token is None:
                keep = _partial(pending)
                self._content(pending[at : len(pending) - keep], out)
                at = len(pending) - keep
                break
            self._content(pending[at : token.start()], out)
            self._end_message(out)
            self.in_header = token.group(1) in ("start", "channel")
            at = token.start() if self.in_header else token.end()
        self.pending = pending[at:]
        return out

    def close(self) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        if not self.in_header:  # a header the stream ended in (`<|start|>assistant`): nothing to show
            self._content(self.pending, out)
        self.pending = ""
        self._end_message(out)
        return out

    def _content(self, text: str, out: list[StreamEvent]) -> None:
        if not text or (self.between and not text.strip()):
            return
        kind = self.header.kind
        if kind == "call":
            self.args.append(text)
        elif kind == "thinking":
            out.append(ThinkingDelta(text))
        else:
            out.append(TextDelta(text))

    def _end_message(self, out: list[StreamEvent]) -> None:
        if self.header.kind == "call":
            out.append(ToolCallEvent(_call(self.header.tool, "".join(self.args))))
            self.calls += 1
        self.args = []
        self.header = Header()
        self.between = True


def _partial(text: str) -> int:
    """How many trailing characters may be the start of a token (held until the next piece says)."""
    at = text.rfind("<", max(0, len(text) - _LONGEST))
    if at < 0:
        return 0
    tail = text[at:]
    names = ("start", "end", "message", "channel", "constrain", "return", "call")
    return len(tail) if any(f"<|{n}|>".startswith(tail) for n in names) else 0
