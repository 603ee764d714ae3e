"""The lean tool definitions: what a small window or a slow local server gets instead of the full ones.

Every token of the fixed prompt is read again on every cold start, at 40-200 tokens/s on a CPU. The lean set keeps the
tools a coding turn needs, with one-line descriptions and schemas that name only the arguments a first call needs;
the rest of the guidance comes when it becomes relevant (a tool's error or its result's paging marker says how to
go on), and the handlers still accept every argument of the full schema (validation uses the full one).

Each tool carries its own lean form (`Tool.lean`, set by its definition): a short description and schema, its place
among the lean definitions, and whether the lean prompt leaves it out unless the session's profile names it (a small
model answers, plans and asks in plain text just as well, and a fetched page would fill a small window).
"""

from __future__ import annotations

from collections.abc import Collection

from ..llm.base import ToolSpec
from .base import Tool
from .registry import ToolRegistry


def lean_specs(registry: ToolRegistry, keep: Collection[str] = ()) -> list[ToolSpec]:
    """The tools the registry offers, lean where they have a lean form, minus those left out unless named that are
    not in `keep`; the lean ones first, by rank, then the others (MCP, run_agent) in the registry's order."""
    tools = [t for t in (registry.get(n) for n in registry.names()) if t is not None]
    offered = [t for t in tools if t.lean is None or not t.lean.only_if_named or t.name in keep]
    lean = sorted((t for t in offered if _short_form(t)), key=lambda t: t.lean.rank if t.lean else 0)
    return [_lean_spec(t) for t in lean] + registry.specs([t.name for t in offered if not _short_form(t)])


def _short_form(tool: Tool) -> bool:
    return tool.lean is not None and tool.lean.description is not None


def _lean_spec(tool: Tool) -> ToolSpec:
    assert tool.lean is not None and tool.lean.description is not None
    return ToolSpec(tool.name, tool.lean.description, tool.lean.parameters or {"type": "object", "properties": {}})
