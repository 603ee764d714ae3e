"""The seam every text call format fills: find the calls a model wrote in its own format, and where they are.

A format is a small object with a `name`, `held` (the literal text that starts one of its blocks, and what ends it,
"" for the end of the answer: streamed text is held back from there until the block is judged), and
`find(text, names)`: the spans of `text` that belong to the format, each with the calls it holds. `names` are the
offered tools (only those count as calls, as for every other text format); None asks for every call-shaped block
whatever it names, which the loop uses to tell "called something that is not a tool" from prose. A span may hold no
call (Harmony's analysis message): it is still cut from what the user sees.

The text is the model's, so it may be hostile: every `find` runs in time linear in the text.
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...messages import ToolCall


@dataclass
class Found:
    start: int
    end: int
    calls: list[ToolCall] = field(default_factory=list)


class CallFormat(Protocol):
    name: str
    held: dict[str, str]

    def find(self, text: str, names: set[str] | None) -> Iterator[Found]: ...


def make_call(name: str, arguments: Any) -> ToolCall:
    """A call named `name` whose arguments are a dict, a JSON string, or something else (an error the loop reports
    to the model, as for a native call with bad arguments)."""
    call = ToolCall(id="call_" + uuid.uuid4().hex[:8], name=name)
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except (ValueError, RecursionError) as exc:
            call.arguments_error = f"arguments are not valid JSON ({exc}): {arguments[:200]}"
            return call
    if isinstance(arguments, dict) and finite(arguments):
        call.arguments = arguments
    else:
        call.arguments_error = f"arguments must be a JSON object, got: {str(arguments)[:200]}"
    return call


def finite(value: Any) -> bool:
    """Whether `value` holds no NaN or infinity (JSON has neither; `1e999` in Python is infinity)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return False
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


def offered(name: str, names: set[str] | None) -> bool:
    return names is None or name in names


_DECODER = json.JSONDecoder()


def decode_at(text: str, start: int) -> tuple[Any, int, int]:
    """The JSON value at `start` (None when there is none), where it ends, and the characters read.

    The decoder reads a window that grows 8 times while its end is what stopped it: a decoding error counts the lines
    of everything before it, so an attempt on the whole text would cost the whole text each time."""
    size, read = 256, 0
    while True:
        window = text[start : start + size]
        try:
            value, end = _DECODER.raw_decode(window)
        except json.JSONDecodeError as exc:
            if start + size >= len(text) or (exc.pos < len(window) - 16 and not exc.msg.startswith("Unterminated")):
                return None, start, read + exc.pos + 1
            read += len(window)
            size *= 8
            continue
        except RecursionError:  # nested past the recursion limit: not a call
            return None, start, read + len(window)
        return value, start + end, read + end
