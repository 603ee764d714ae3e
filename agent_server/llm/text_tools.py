"""Tool calls that a model wrote as text instead of emitting them natively.

Recognized forms: `<tool_call>{...}</tool_call>` (Hermes/Qwen, also `<function=name><parameter=k>v</parameter>`),
`[TOOL_REQUEST]{...}[END_TOOL_REQUEST]` (LM Studio), `<tool>{"server_name","tool_name","arguments"}</tool>`, fenced
```json / ```tool blocks, and a bare `{"name": ..., "arguments"|"parameters": ...}` object. Only offered names count,
and nothing inside `<think>...</think>` does.

The text is the model's, so it may be hostile: thousands of unclosed tags, fences or `{"` openers, JSON nested past
the recursion limit. Every pattern here finishes in time linear in the text (no pattern can fail after a long scan
and be retried at the next position), and the JSON decoder gets a budget of characters for its failed attempts.
"""

from __future__ import annotations

import bisect
import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

from ..messages import ToolCall
from .call_formats import FORMATS

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL)
_TAGGED = [
    re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL),
    re.compile(r"\[TOOL_REQUEST\](.*?)(?:\[END_TOOL_REQUEST\]|$)", re.DOTALL),
    re.compile(r"<tool>(.*?)(?:</tool>|$)", re.DOTALL),
    re.compile(r"```(?:json|tool|tool_call|tool_code)?[ \t]*\n(.*?)```", re.DOTALL),
]
_FUNCTION = re.compile(r"<function=([\w.\-]+)>(.*?)(?:</function>|$)", re.DOTALL)
# The value is stripped in code: `\s*(.*?)\s*` before the end would retry every split of a long run of spaces.
_PARAMETER = re.compile(r"<parameter=([\w.\-]+)>(.*?)(?:</parameter>|(?=<parameter=)|$)", re.DOTALL)
_DECODER = json.JSONDecoder()
# `{` or `[{` where an object can start: `}`, or a key and its colon, next (`{x`, `{name}`, `{'a'` and `{"a{"` are
# never decoded). A key's scan ends at the next quote, so at the next opener's at the latest: linear in all.
_OPENER = re.compile(r'\[?\{(?=\s*(?:\}|"(?:[^"\\\n]|\\.)*"\s*:))')
# Characters that failed JSON decodes may read per character of text (then the rest is not searched): prose and code
# fail within a few characters of each `{`; only text built to make every attempt read to the end runs out.
_DECODE_BUDGET = 2


def recover_tool_calls(text: str, names: set[str]) -> tuple[list[ToolCall], str]:
    """The calls found in `text` (offered `names` only) and the text left visible once they are removed."""
    visible = _THINK.sub("", text)
    calls: list[ToolCall] = []
    taken = _Spans()
    for fmt in FORMATS:  # Harmony, Mistral, pythonic (llm/call_formats/): whole spans, markers included
        for span in fmt.find(visible, names):
            if taken.free(span.start, span.end):
                calls.extend(span.calls)
                taken.take(span.start, span.end)
    for pattern in _TAGGED:
        for match in pattern.finditer(visible):
            if not taken.free(*match.span()):
                continue
            found = _calls_in(match.group(1), names)
            if found:
                calls.extend(found)
                taken.take(*match.span())
    for start, end, obj in _bare_objects(visible):
        if not taken.free(start, end):
            continue
        found = [c for c in (_call_from(o, names) for o in _as_list(obj)) if c is not None]
        if found:
            calls.extend(found)
            taken.take(start, end)
    return calls, taken.cut_from(visible).strip()


class _Spans:
    """Spans of the text that held calls: none overlap, so sorted by start they are sorted by end too, and a new
    span is checked against its one neighbour (a check against every span was quadratic in the calls)."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def free(self, start: int, end: int) -> bool:
        before = bisect.bisect_left(self.starts, end)  # the spans that start before this one ends
        return before == 0 or self.ends[before - 1] <= start

    def take(self, start: int, end: int) -> None:
        at = bisect.bisect_left(self.starts, start)
        self.starts.insert(at, start)
        self.ends.insert(at, end)

    def cut_from(self, text: str) -> str:
        """`text` without the spans."""
        kept, at = [], 0
        for start, end in zip(self.starts, self.ends, strict=True):
            kept.append(text[at:start])
            at = end
        kept.append(text[at:])
        return "".join(kept)


def _calls_in(payload: str, names: set[str]) -> list[ToolCall]:
    out = []
    for fn in _FUNCTION.finditer(payload):
        args: dict[str, Any] = {}
        for param in _PARAMETER.finditer(fn.group(2)):
            args[param.group(1)] = _loose_value(param.group(2).strip())
        if call := _call_from({"name": fn.group(1), "arguments": args}, names):
            out.append(call)
    if out:
        return out
    for _, _, obj in _bare_objects(payload):
        out.extend(c for c in (_call_from(o, names) for o in _as_list(obj)) if c is not None)
    return out


def _loose_value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):  # nested past the recursion limit: kept as the text it is
        return raw


def _as_list(obj: Any) -> list[Any]:
    return obj if isinstance(obj, list) else [obj]


def _bare_objects(text: str) -> Iterator[tuple[int, int, Any]]:
    """Every top-level JSON object or array of objects in `text`, with its span. Each `{` is tried; an attempt that
    fails costs what the decoder read, out of a budget linear in the text, so `{"a: {"a: ...` stays linear."""
    budget = _DECODE_BUDGET * len(text) + 10_000
    index, limit = 0, len(text)
    while budget > 0:
        opener = _OPENER.search(text, index, limit)
        if opener is None:
            return
        start = opener.start()
        found, read, unterminated = _decode_at(text, start)
        budget -= read
        if found is None:
            if unterminated is not None:
                # No quote closes the string that starts there (the decoder read to the end): no object after it
                # has a key, so none after it can be a call.
                limit = min(limit, unterminated)
            index = start + 1
            continue
        yield start, found[1], found[0]
        index = found[1]


def _decode_at(text: str, start: int) -> tuple[tuple[Any, int] | None, int, int | None]:
    """The JSON value at `start` and its end (None when there is none), the characters read, and where an
    unterminated string starts. The decoder reads a window that grows 8 times while its end is what stopped it: a
    decoding error counts the lines before it, so an attempt on the whole text would cost the whole text."""
    size, read = 256, 0
    while True:
        window = text[start : start + size]
        whole = start + size >= len(text)
        try:
            obj, end = _DECODER.raw_decode(window)
        except json.JSONDecodeError as exc:
            unterminated = exc.msg.startswith("Unterminated string")
            if whole or not (unterminated or exc.pos >= len(window) - 16):
                return (
                    None,
                    read + (len(window) if unterminated else exc.pos + 1),
                    start + exc.pos if unterminated else None,
                )
            read += len(window)
            size *= 8
            continue
        except RecursionError:  # nested past the recursion limit: not a call
            return None, read + len(window), None
        return (obj, start + end), read + end, None


_NOT_ARGUMENTS = {"name", "tool_name", "server_name", "function", "id", "type", "index"}


def _call_from(obj: Any, names: set[str]) -> ToolCall | None:
    if not isinstance(obj, dict):
        return None
    inner = obj.get("function")
    fn: dict[str, Any] = inner if isinstance(inner, dict) else obj
    candidates = [fn.get("name"), fn.get("tool_name")]
    server = fn.get("server_name")
    if server and fn.get("tool_name"):
        tool = fn["tool_name"]
        candidates += [f"{server}.{tool}", f"mcp.{server}.{tool}", f"{server}__{tool}", f"mcp__{server}__{tool}"]
    name = next((c for c in candidates if isinstance(c, str) and c in names), None)
    if name is None:
        return None
    # No arguments key: small models put the arguments beside the name (`{"name": "x", "summary": "..."}`).
    beside = {k: v for k, v in fn.items() if k not in _NOT_ARGUMENTS}
    args: Any = next((fn[k] for k in ("arguments", "parameters", "args", "input") if k in fn), beside)
    call = ToolCall(id="call_" + uuid.uuid4().hex[:8], name=name)
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except (ValueError, RecursionError) as exc:
            call.arguments_error = f"arguments are not valid JSON ({exc}): {args[:200]}"
            return call
    if isinstance(args, dict):
        call.arguments = args
    else:
        call.arguments_error = f"arguments must be a JSON object, got: {json.dumps(args)[:200]}"
    return call


_ARG_KEYS = ("arguments", "parameters", "args", "input")


def call_shaped(text: str) -> list[ToolCall]:
    """Every call the text makes, offered or not: `{"name": ..., "arguments": ...}` objects (bare, fenced or tagged)
    and `<function=name>` blocks. The loop uses it to tell "called something that is not a tool" from prose."""
    visible = _THINK.sub("", text)
    taken, formatted = _Spans(), []
    for fmt in FORMATS:  # their spans are cut first, so a Mistral list is not found again as bare JSON
        for span in fmt.find(visible, None):
            if taken.free(span.start, span.end):
                taken.take(span.start, span.end)
                formatted += span.calls
    visible = taken.cut_from(visible)
    found = [
        ToolCall(
            id="",
            name=fn.group(1),
            arguments={p.group(1): _loose_value(p.group(2).strip()) for p in _PARAMETER.finditer(fn.group(2))},
        )
        for fn in _FUNCTION.finditer(visible)
    ]
    for _, _, obj in _bare_objects(visible):
        for item in _as_list(obj):
            if not isinstance(item, dict):
                continue
            inner = item.get("function")
            fn: dict[str, Any] = inner if isinstance(inner, dict) else item
            name = fn.get("name") or fn.get("tool_name")
            if isinstance(name, str) and name and any(k in fn for k in _ARG_KEYS):
                args = next(fn[k] for k in _ARG_KEYS if k in fn)
                found.append(ToolCall(id="", name=name, arguments=args if isinstance(args, dict) else {"value": args}))
    return formatted + found
