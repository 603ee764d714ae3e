"""The lean tool definitions: what a small window or a slow local server gets instead of the full ones.

Every token of the fixed prompt is read again on every cold start, at 40-200 tokens/s on a CPU. The lean set keeps the
tools a coding turn needs, with one-line descriptions and schemas that name only the arguments a first call needs;
the rest of the guidance comes when it becomes relevant (a tool's error or its result's paging marker says how to
go on), and the handlers still accept every argument of the full schema (validation uses the full one).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..llm.base import ToolSpec
from .registry import ToolRegistry

_S: dict[str, Any] = {"type": "string"}
_I: dict[str, Any] = {"type": "integer"}


def _obj(required: list[str], **optional: dict[str, Any]) -> dict[str, Any]:
    properties = {name: _S for name in required} | optional
    return {"type": "object", "properties": properties, "required": required}


# Order is the order the model sees them in.
LEAN_TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    "read_file": ("Read a file (numbered lines).", _obj(["path"], start_line=_I, end_line=_I)),
    "list_directory": ("List a folder.", _obj([], path=_S)),
    "find_files": ("Find files by glob ('**/*.py').", _obj(["pattern"])),
    "search_text": ("Regex search in files; prints path:line: text.", _obj(["pattern"], path=_S)),
    "edit_file": ("Replace old_text (exact, once) with new_text.", _obj(["path", "old_text", "new_text"])),
    "write_file": ("Create or overwrite a file.", _obj(["path", "content"])),
    "run_command": ("Run a shell command; returns exit code and output.", _obj(["command"])),
    "codebase_search": ("Find code by meaning or name.", _obj(["query"])),
    "update_plan": (
        "Record your plan (the whole list each time).",
        _obj([], entries={"type": "array", "items": _obj(["content", "status"])}),
    ),
    "ask_question": ("Ask the user a question; ends your turn.", _obj(["question"])),
    "task_completion": ("Finish the task with a summary.", _obj(["summary"])),
}
# Built-ins the lean prompt leaves out unless the session's profile names them (a `task` profile keeps
# task_completion): a small model answers, plans and asks in plain text just as well, and a fetched page would fill
# a small window (a profile that names web_fetch keeps it).
LEFT_OUT = frozenset({"codebase_search", "update_plan", "ask_question", "task_completion", "web_fetch"})


def lean_specs(registry: ToolRegistry, keep: Collection[str] = ()) -> list[ToolSpec]:
    """The tools the registry offers, lean where a lean definition exists, minus LEFT_OUT built-ins not in `keep`;
    the lean built-ins first, in LEAN_TOOLS order, then the others (MCP, run_agent) in the registry's order."""
    names = [n for n in registry.names() if n not in LEFT_OUT or n in keep]
    lean = [ToolSpec(n, *LEAN_TOOLS[n]) for n in LEAN_TOOLS if n in names]
    return lean + registry.specs([n for n in names if n not in LEAN_TOOLS])
