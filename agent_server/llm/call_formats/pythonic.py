"""Pythonic calls: a list of Python calls with keyword arguments, `[read_file(path="a.py"), run_command(command="ls")]`.

Llama 3.2 writes them bare (its model card's "pythonic" tool format, vLLM's `pythonic` parser); LFM2 and LFM2.5 wrap
them in `<|tool_call_start|>` ... `<|tool_call_end|>` (vLLM's `lfm2` parser). A bare list counts only when it names an
offered tool; a wrapped one is a call whatever it names (the loop answers a name that is not a tool).

The list is found by a scan that knows brackets and string literals (a `]` inside `'grep "]" log'` does not end it),
then parsed by `ast` and never evaluated: each argument must be a literal; sets and tuples become lists, as JSON has
neither. LFM2 writes raw newlines inside single-quoted strings (multi-line shell commands), which
Python refuses: the scan notes them and they are escaped before parsing.

Linear: each candidate `[name(` is scanned at most MAX_BLOCK characters, out of a budget proportional to the text.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import Any

from ...messages import ToolCall
from .base import Found, make_call, offered

START, END = "<|tool_call_start|>", "<|tool_call_end|>"
_CANDIDATE = re.compile(r"\[[ \t\n]*[A-Za-z_][\w.]*[ \t\n]*\(")
_PREFIX = re.compile(r"\[[ \t\n]*(?:[A-Za-z_][\w.]*[ \t\n]*)?")
OPENER = r"\[(?=[ \t\n]*[A-Za-z_])"  # where a bare list may start, for the stream's holdback
_SIGNIFICANT = re.compile(r"""[()\[\]{}'"]""")
_CLOSERS = {"(": ")", "[": "]", "{": "}"}
MAX_BLOCK = 1 << 20  # a call list longer than this (1 MiB) is not looked at
_BUDGET_PER_CHAR = 4  # characters the scans may read per character of text


class Pythonic:
    name = "pythonic"

    def __init__(self) -> None:
        self.held = {START: END}

    def find(self, text: str, names: set[str] | None) -> Iterator[Found]:
        budget = _BUDGET_PER_CHAR * len(text) + 10_000
        pos = 0
        while budget > 0:
            candidate = _CANDIDATE.search(text, pos)
            if candidate is None:
                return
            start = candidate.start()
            end, read, newlines = _close(text, start, min(len(text), start + MAX_BLOCK))
            budget -= read
            if end is None:
                pos = start + 1
                continue
            wrapped_start, wrapped_end = _wrapper(text, start, end)
            calls = _parse(_escaped(text, start, end, newlines), names)
            if calls is None or (names is None and wrapped_start == start):
                pos = start + 1 if calls is None else end
                continue
            if calls:
                yield Found(wrapped_start, wrapped_end, calls)
            pos = end


def held_block(text: str, final: bool) -> int | None:
    """For streamed text held at a `[`: the length of the list of calls it starts; 0 while more text is needed to
    tell; None when it is not one (`[link]`, `[x] done`)."""
    if _CANDIDATE.match(text) is None:
        return 0 if not final and _PREFIX.fullmatch(text) else None
    end, _read, _newlines = _close(text, 0, min(len(text), MAX_BLOCK))
    return end or 0


def _wrapper(text: str, start: int, end: int) -> tuple[int, int]:
    """The span widened to LFM2's start and end tokens when they surround the list (a little whitespace between)."""
    head = start
    while head > 0 and text[head - 1] in " \t\n" and start - head < 8:
        head -= 1
    if head < len(START) or not text.startswith(START, head - len(START)):
        return start, end
    tail = end
    while tail < len(text) and text[tail] in " \t\n" and tail - end < 8:
        tail += 1
    return head - len(START), tail + len(END) if text.startswith(END, tail) else end


def _close(text: str, start: int, limit: int) -> tuple[int | None, int, list[int]]:
    """The end of the bracketed list that opens at `start` (None when it does not close before `limit`), the
    characters read, and the raw newlines inside single-quoted strings."""
    stack: list[str] = []
    newlines: list[int] = []
    i = start
    while i < limit:
        found = _SIGNIFICANT.search(text, i, limit)
        if found is None:
            return None, limit - start, newlines
        char, i = found.group(), found.end()
        if char in _CLOSERS:
            stack.append(_CLOSERS[char])
        elif char in ")]}":
            if not stack or stack.pop() != char:
                return None, i - start, newlines
            if not stack:
                return i, i - start, newlines
        else:
            i = _string_end(text, i - 1, limit, newlines)
            if i < 0:
                return None, limit - start, newlines
    return None, limit - start, newlines


def _string_end(text: str, quote_at: int, limit: int, newlines: list[int]) -> int:
    """The index after the string literal that starts at `quote_at`, or -1 when it does not end before `limit`."""
    quote = text[quote_at]
    triple = text.startswith(quote * 3, quote_at)
    close = quote * 3 if triple else quote
    j = quote_at + len(close)
    while True:
        k = text.find(close, j, limit)
        if k < 0:
            return -1
        backslashes = 0
        while k - backslashes - 1 >= j and text[k - backslashes - 1] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            if not triple:
                at = text.find("\n", quote_at, k)
                while at >= 0:
                    newlines.append(at)
                    at = text.find("\n", at + 1, k)
            return k + len(close)
        j = k + 1


def _escaped(text: str, start: int, end: int, newlines: list[int]) -> str:
    if not newlines:
        return text[start:end]
    parts, at = [], start
    for n in newlines:
        parts.append(text[at:n])
        parts.append("\\n")
        at = n + 1
    parts.append(text[at:end])
    return "".join(parts)


def _parse(source: str, names: set[str] | None) -> list[ToolCall] | None:
    """The offered calls of a `[f(a=1), g()]` list; None when the text is not such a list."""
    try:
        tree = ast.parse(source.replace("\x00", "\\x00"), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    body = tree.body
    if not isinstance(body, ast.List) or not body.elts or not all(isinstance(e, ast.Call) for e in body.elts):
        return None
    calls = []
    for node in body.elts:
        assert isinstance(node, ast.Call)
        name = _dotted(node.func)
        if name is None:
            return None
        if offered(name, names):
            calls.append(_call(name, node))
    return calls


def _dotted(func: ast.expr) -> str | None:
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return None
    return ".".join([func.id, *reversed(parts)])


def _call(name: str, node: ast.Call) -> ToolCall:
    if node.args or any(k.arg is None for k in node.keywords):
        call = make_call(name, {})
        call.arguments_error = "arguments must be given by name (`path='a.py'`), not by position"
        return call
    arguments: dict[str, Any] = {}
    for keyword in node.keywords:
        try:
            arguments[str(keyword.arg)] = _literal(keyword.value)
        except ValueError:
            call = make_call(name, {})
            call.arguments_error = f"argument {keyword.arg} is not a literal value: {ast.unparse(keyword.value)[:200]}"
            return call
    return make_call(name, arguments)


def _literal(node: ast.expr) -> Any:
    """A literal as JSON has it (never evaluated): sets and tuples as lists, in the order written; anything JSON
    cannot hold (bytes, names, calls, expressions) is refused."""
    if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, str | bool | int | float)):
        return node.value
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [_literal(e) for e in node.elts]
    if isinstance(node, ast.Dict) and all(k is not None for k in node.keys):
        return {str(_literal(k)): _literal(v) for k, v in zip(node.keys, node.values, strict=True) if k is not None}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _literal(node.operand)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return -value if isinstance(node.op, ast.USub) else value
    raise ValueError("not a literal")
