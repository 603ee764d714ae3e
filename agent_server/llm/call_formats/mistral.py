"""Mistral's calls: `[TOOL_CALLS]` then either a JSON list of `{"name", "arguments"}` objects (Mistral 7B v0.3, Nemo,
the pre-v11 tokenizers) or `name[ARGS]{...}` per call (v11 and later: Mistral Small 3.2, Devstral, Magistral), with an
optional `[CALL_ID]id` between name and arguments (v13). A server that drops special tokens leaves `name{...}`.

Served through llama.cpp without `--jinja`, LM Studio's raw mode or a proxy that does not parse them, these reach the
client as text (vLLM's `mistral` tool parser tests hold the shapes, tests/fixtures/call_formats/). The marker is
explicit, so a block is a call whatever it names; only offered names are run, as for every text format.

Linear: markers are found with `str.find`, a name is one bounded regex match, and the JSON decoder's failed attempts
share a budget proportional to the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ...messages import ToolCall
from .base import Found, decode_at, make_call, offered

MARKER = "[TOOL_CALLS]"
_NAMED = re.compile(r"\s*([A-Za-z_][\w.\-]{0,127})(?:\[CALL_ID\][\w\-]{0,64})?(?:\[ARGS\])?\s*(?=\{)")


class Mistral:
    name = "mistral"

    def __init__(self) -> None:
        self.held = {MARKER: ""}

    def find(self, text: str, names: set[str] | None) -> Iterator[Found]:
        budget = 2 * len(text) + 10_000
        at = text.find(MARKER)
        while at >= 0 and budget > 0:
            body = at + len(MARKER)
            end, calls, read = _after_marker(text, body, names)
            budget -= read
            if end is None:
                at = text.find(MARKER, body)
                continue
            if calls:
                yield Found(at, end, calls)
            at = text.find(MARKER, end)


def _after_marker(text: str, at: int, names: set[str] | None) -> tuple[int | None, list[ToolCall], int]:
    """(end of the calls after a marker or None, the offered calls, characters the decoder read)."""
    start = at
    while start < len(text) and text[start] in " \t\r\n":
        start += 1
    if text.startswith("[", start):
        value, end, read = decode_at(text, start)
        if not isinstance(value, list):
            return None, [], read
        calls = [c for c in (_listed(item, names) for item in value) if c is not None]
        return end, calls, read
    named = _NAMED.match(text, at)
    if named is None:
        return None, [], 0
    value, end, read = decode_at(text, named.end())
    if not isinstance(value, dict):
        return None, [], read
    name = named.group(1)
    return end, [make_call(name, value)] if offered(name, names) else [], read


def _listed(item: Any, names: set[str] | None) -> ToolCall | None:
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        return None
    name = item["name"]
    return make_call(name, item.get("arguments", {})) if offered(name, names) else None
