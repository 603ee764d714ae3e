"""Tool calls that a model wrote as text instead of emitting them natively.

Recognized forms: `<tool_call>{...}</tool_call>` (Hermes/Qwen, also `<function=name><parameter=k>v</parameter>`),
`[TOOL_REQUEST]{...}[END_TOOL_REQUEST]` (LM Studio), `<tool>{"server_name","tool_name","arguments"}</tool>`, fenced
```json / ```tool blocks, and a bare `{"name": ..., "arguments"|"parameters": ...}` object. Only offered names count,
and nothing inside `<think>...</think>` does.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

from ..messages import ToolCall

_THINK = re.compile(r"<think>.*?(</think>|$)", re.DOTALL)
_TAGGED = [
    re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL),
    re.compile(r"\[TOOL_REQUEST\](.*?)(?:\[END_TOOL_REQUEST\]|$)", re.DOTALL),
    re.compile(r"<tool>(.*?)(?:</tool>|$)", re.DOTALL),
    re.compile(r"```(?:json|tool|tool_call|tool_code)?[ \t]*\n(.*?)```", re.DOTALL),
]
_FUNCTION = re.compile(r"<function=([\w.\-]+)>(.*?)(?:</function>|$)", re.DOTALL)
_PARAMETER = re.compile(r"<parameter=([\w.\-]+)>\s*(.*?)\s*(?:</parameter>|(?=<parameter=)|$)", re.DOTALL)
_DECODER = json.JSONDecoder()


def recover_tool_calls(text: str, names: set[str]) -> tuple[list[ToolCall], str]:
    """The calls found in `text` (offered `names` only) and the text left visible once they are removed."""
    visible = _THINK.sub("", text)
    calls: list[ToolCall] = []
    spans: list[tuple[int, int]] = []
    for pattern in _TAGGED:
        for match in pattern.finditer(visible):
            if _overlaps(match.span(), spans):
                continue
            found = _calls_in(match.group(1), names)
            if found:
                calls.extend(found)
                spans.append(match.span())
    for start, end, obj in _bare_objects(visible):
        if _overlaps((start, end), spans):
            continue
        found = [c for c in (_call_from(o, names) for o in _as_list(obj)) if c is not None]
        if found:
            calls.extend(found)
            spans.append((start, end))
    for start, end in sorted(spans, reverse=True):
        visible = visible[:start] + visible[end:]
    return calls, visible.strip()


def _overlaps(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(span[0] < e and s < span[1] for s, e in spans)


def _calls_in(payload: str, names: set[str]) -> list[ToolCall]:
    out = []
    for fn in _FUNCTION.finditer(payload):
        args: dict[str, Any] = {}
        for param in _PARAMETER.finditer(fn.group(2)):
            args[param.group(1)] = _loose_value(param.group(2))
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
    except ValueError:
        return raw


def _as_list(obj: Any) -> list[Any]:
    return obj if isinstance(obj, list) else [obj]


def _bare_objects(text: str) -> Iterator[tuple[int, int, Any]]:
    """Every top-level JSON object or array of objects in `text`, with its span."""
    index = 0
    while True:
        starts = [i for i in (text.find("{", index), text.find("[{", index)) if i >= 0]
        if not starts:
            return
        start = min(starts)
        try:
            obj, end = _DECODER.raw_decode(text, start)
        except ValueError:
            index = start + 1
            continue
        yield start, end, obj
        index = end


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
        except ValueError as exc:
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
    found = [
        ToolCall(
            id="",
            name=fn.group(1),
            arguments={p.group(1): _loose_value(p.group(2)) for p in _PARAMETER.finditer(fn.group(2))},
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
    return found
