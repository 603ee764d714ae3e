"""The lean tool definitions: what a small window or a slow local server gets instead of the full ones.

Every token of the fixed prompt is read again on every cold start, at 40-200 tokens/s on a CPU. The lean set keeps the
tools a coding turn needs, with one-line descriptions and schemas that name only the arguments a first call needs;
the rest of the guidance comes when it becomes relevant (a tool's error or its result's paging marker says how to
go on), and the handlers still accept every argument of the full schema (validation uses the full one).
"""

from __future__ import annotations

from typing import Any

from ..llm.base import ToolSpec
from .registry import ToolRegistry

_S: dict[str, Any] = {"type": "string"}
_I: dict[str, Any] = {"type": "integer"}


def _obj(required: list[str], **optional: dict[str, Any]) -> dict[str, Any]:
    properties = {name: _S for name in required} | optional
    return {"type": "object", "properties": properties, "required": required}


# Order is the order the model sees them in. Built-ins not listed here are left out of the lean prompt.
LEAN_TOOLS: dict[str, tuple[str, dict[str, Any]]] = {
    "read_file": ("Read a file (numbered lines).", _obj(["path"], start_line=_I, end_line=_I)),
    "list_directory": ("List a folder.", _obj([], path=_S)),
    "find_files": ("Find files by glob ('**/*.py').", _obj(["pattern"])),
    "search_text": ("Regex search in files; prints path:line: text.", _obj(["pattern"], path=_S)),
    "edit_file": ("Replace old_text (exact, once) with new_text.", _obj(["path", "old_text", "new_text"])),
    "write_file": ("Create or overwrite a file.", _obj(["path", "content"])),
    "run_command": ("Run a shell command; returns exit code and output.", _obj(["command"])),
}
# Offered in the lean prompt only where the session's profile needs them (a `task` profile must end with it).
LEAN_TASK_TOOL = ("task_completion", "Finish the task with a summary.", _obj(["summary"]))


def lean_specs(registry: ToolRegistry, task: bool) -> list[ToolSpec]:
    """The lean definitions of the built-ins the registry offers, then its other (MCP) tools as they are."""
    names = set(registry.names())
    specs = [ToolSpec(name, text, schema) for name, (text, schema) in LEAN_TOOLS.items() if name in names]
    name, text, schema = LEAN_TASK_TOOL
    if task and name in names:
        specs.append(ToolSpec(name, text, schema))
    others = [n for n in registry.names() if getattr(registry.get(n), "source", "builtin") != "builtin"]
    return specs + registry.specs(others)
