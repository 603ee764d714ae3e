"""Streamed text that may be a tool call written as text is held back until it is known not to be one.

Small models often write their call as JSON (bare or in a ```json fence) or in tags instead of emitting it natively.
Streamed as it comes, that JSON appears in the chat as the answer and then again as a tool card. `CallHoldback` sits
between the model's text deltas and the client: text before a possible call goes out at once; from an opener
(`{`, a ``` fence whose language may hold a call, `<tool_call>`, `<function=`, `[TOOL_REQUEST]`, `<tool>`) it waits
until the block is complete. A block that is call-shaped is never shown (the loop shows the recovered call as a tool
card, or nudges a call of something that is not a tool); anything else is released unchanged. Nothing is lost: the
assistant message keeps the whole text, only what the user sees is delayed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from ...llm.call_formats import HELD
from ...llm.call_formats.pythonic import OPENER, held_block
from ...llm.text_tools import call_shaped, recover_tool_calls

_TAGS = {
    "<tool_call>": "</tool_call>",
    "<function=": "</function>",
    "[TOOL_REQUEST]": "[END_TOOL_REQUEST]",
    "<tool>": "</tool>",
    **HELD,  # `[TOOL_CALLS]` (to the end of the answer: no closer), `<|tool_call_start|>`
}
_OPENERS = ("{", "[{", "```", *_TAGS)
_CALL_FENCES = {"", "json", "tool", "tool_call", "tool_code", "javascript", "js"}
_FENCE_LINE = re.compile(r"```([\w+-]*)[ \t]*\n")
_DECODER = json.JSONDecoder()
MAX_HELD = 8000  # a "call" longer than this is prose or code: release it


class CallHoldback:
    """`names`: the tools offered; an object naming one counts as a call even without an arguments key."""

    def __init__(self, names: set[str] | None = None) -> None:
        self._names = names or set()
        self._buf = ""
        self._pos = 0  # everything before this was shown or dropped
        self._in_code = False  # inside a fence that cannot be a call: shown as it comes
        self._space = ""  # whitespace just before a possible call: shown only if more text follows
        self._after_call = False  # whitespace right after a hidden call is dropped
        self.hidden: list[str] = []  # the blocks that were calls and never shown

    def feed(self, text: str) -> str:
        if self._pos:  # what was shown or dropped goes: kept, every delta would copy the whole answer again
            self._buf, self._pos = self._buf[self._pos :], 0
        self._buf += text
        return self._drain(final=False)

    def close(self) -> str:
        return self._drain(final=True)

    def _drain(self, final: bool) -> str:
        out: list[str] = []
        while self._pos < len(self._buf):
            rest = self._buf[self._pos :]
            if self._in_code:
                end = rest.find("```")
                if end < 0:
                    keep = 0 if final else _partial_suffix(rest, ("```",))
                    self._emit(out, rest[: len(rest) - keep])
                    self._pos += len(rest) - keep
                    break
                self._emit(out, rest[: end + 3])
                self._pos += end + 3
                self._in_code = False
                continue
            start = _first_opener(rest)
            if start is None:
                keep = 0 if final else _partial_suffix(rest, _OPENERS)
                text = rest[: len(rest) - keep]
                stripped = text if final else text.rstrip()  # trailing space may come before a call
                self._emit(out, stripped)
                self._hold_space(text[len(stripped) :])
                self._pos += len(rest) - keep
                break
            before = rest[:start]
            stripped = before.rstrip()
            self._emit(out, stripped)
            self._hold_space(before[len(stripped) :])
            self._pos += start
            verdict, length = _judge(self._buf[self._pos :], final, self._is_call)
            if verdict == "wait":
                break
            block = self._buf[self._pos : self._pos + length]
            self._pos += length
            if verdict == "call":
                self.hidden.append(block)
                self._after_call = True  # the space before it separates what comes next, if anything does
            else:
                self._emit(out, block)
                self._in_code = verdict == "code"
        if final and self._space:
            out.append(self._space)  # it separates this answer from the next round's
        if final:
            self._space = ""
        return "".join(out)

    def _is_call(self, block: str) -> bool:
        return bool(call_shaped(block)) or bool(self._names and recover_tool_calls(block, self._names)[0])

    def _hold_space(self, space: str) -> None:
        if not self._after_call:  # after a hidden call, the space before it already separates
            self._space += space

    def _emit(self, out: list[str], text: str) -> None:
        if self._after_call:
            text = text.lstrip()
            if not text:
                return
            self._after_call = False
        if text:
            out.append(self._space + text)
            self._space = ""


# A `[` before a name may open a bare pythonic list (`[read_file(path='a.py')]`, Llama 3.2).
_ANY_OPENER = re.compile("|".join([*(re.escape(o) for o in _OPENERS), OPENER]))


def _first_opener(text: str) -> int | None:
    # One search that stops at the first opener: a find per opener read all the held text again at every delta.
    found = _ANY_OPENER.search(text)
    return found.start() if found else None


def _partial_suffix(text: str, openers: tuple[str, ...]) -> int:
    """How many trailing characters could be the start of an opener (kept until the next delta says)."""
    best = 0
    for opener in openers:
        for n in range(min(len(opener) - 1, len(text)), 0, -1):
            if text.endswith(opener[:n]):
                best = max(best, n)
                break
    return best


def _judge(text: str, final: bool, is_call: Callable[[str], bool]) -> tuple[str, int]:
    """("call" | "text" | "code" | "wait", length of the block at the start of `text`)."""
    if text.startswith("```"):
        line = _FENCE_LINE.match(text)
        if line is None:
            return ("text", len(text)) if final else ("wait", 0)
        if line.group(1).lower() not in _CALL_FENCES:
            return "code", line.end()  # ```python: shown as it streams, never a call
        end = text.find("```", line.end())
        if end < 0:
            return _unfinished(text, final, is_call)
        block = text[: end + 3]
        return ("call" if is_call(block) else "text"), len(block)
    for opener, closer in _TAGS.items():
        if text.startswith(opener):
            end = text.find(closer) if closer else -1
            if end < 0:
                return _unfinished(text, final, is_call)
            block = text[: end + len(closer)]
            return ("call" if is_call(block) or opener == "<tool_call>" else "text"), len(block)
    if text.startswith("[") and not text.startswith("[{"):
        size = held_block(text, final)
        if size is None:
            return "text", 1
        return _unfinished(text, final, is_call) if size == 0 else (("call" if is_call(text[:size]) else "text"), size)
    # `{` or `[{`: JSON that may be a call. Not JSON-looking at once (`{x`, `{}`) is text.
    head = text[2:] if text.startswith("[{") else text[1:]
    stripped = head.lstrip()
    if stripped and stripped[0] != '"':
        return "text", len(text) - len(head)
    try:
        _obj, end = _DECODER.raw_decode(text)
    except ValueError:
        return _unfinished(text, final, is_call)
    block = text[:end]
    return ("call" if is_call(block) else "text"), len(block)


def _unfinished(text: str, final: bool, is_call: Callable[[str], bool]) -> tuple[str, int]:
    if final or len(text) > MAX_HELD:
        # The stream ended inside the block: a call cut short is still a call (the loop recovers what it can).
        return ("call" if is_call(text) or _looks_like_call(text) else "text"), len(text)
    return "wait", 0


def _looks_like_call(text: str) -> bool:
    return bool(re.match(r'\s*(?:```\w*\s*)?\[?\{\s*"(?:name|function|tool_name)"\s*:', text)) or text.startswith(
        "<tool_call>"
    )
